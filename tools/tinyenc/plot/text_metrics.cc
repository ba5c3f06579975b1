#include "plot/text_metrics.h"

#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include <cstddef>
#include <cstdint>

namespace tinyenc::plot {
namespace {

// East Asian Wide and Fullwidth characters take two columns (Unicode UAX #11, from ICU's data);
// combining marks, format characters and variation selectors take none.
int columns_of(UChar32 c) {
  if (c == 0x200B || u_charType(c) == U_NON_SPACING_MARK || u_charType(c) == U_ENCLOSING_MARK ||
      u_charType(c) == U_FORMAT_CHAR || u_hasBinaryProperty(c, UCHAR_VARIATION_SELECTOR)) {
    return 0;
  }
  const int width = u_getIntPropertyValue(c, UCHAR_EAST_ASIAN_WIDTH);
  return width == U_EA_WIDE || width == U_EA_FULLWIDTH ? 2 : 1;
}

// Calls visit(code point, its bytes) for each character; an ill-formed sequence (overlong,
// surrogate, truncated) is visited as U+FFFD, one maximal subpart at a time, as ICU reads it.
template <typename Visit>
void for_each_code_point(std::string_view text, Visit visit) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(text.data());
  const int32_t length = static_cast<int32_t>(text.size());
  int32_t i = 0;
  while (i < length) {
    const int32_t begin = i;
    UChar32 c;
    U8_NEXT(bytes, i, length, c);
    visit(c < 0 ? 0xFFFD : c,
          text.substr(static_cast<size_t>(begin), static_cast<size_t>(i - begin)));
  }
}

}  // namespace

int display_columns(std::string_view text) {
  int columns = 0;
  for_each_code_point(text, [&](UChar32 c, std::string_view) { columns += columns_of(c); });
  return columns;
}

double text_width(std::string_view text, double font_size) {
  double em = 0;
  for_each_code_point(text, [&](UChar32 c, std::string_view) {
    const int columns = columns_of(c);
    em += columns == 0 ? 0.0 : columns == 2 ? 1.0 : 0.6;
  });
  return em * font_size;
}

std::vector<std::string> wrap_text(std::string_view text, double font_size, double max_width) {
  // Pieces that stay together: a run of narrow non-space characters (a word), one wide
  // character, or one space.
  struct Piece {
    std::string bytes;
    bool space = false;
  };
  std::vector<Piece> pieces;
  bool word_open = false;
  for_each_code_point(text, [&](UChar32 c, std::string_view bytes) {
    const bool space = c == ' ' || c == '\t' || c == '\n' || c == 0x3000;
    const bool wide = columns_of(c) == 2 && !space;
    if (space || wide || !word_open)
      pieces.push_back({std::string(bytes), space});
    else
      pieces.back().bytes += bytes;
    word_open = !space && !wide;
  });

  std::vector<std::string> lines;
  std::string line;
  double width = 0;
  const auto finish_line = [&] {
    while (!line.empty() && line.back() == ' ') line.pop_back();
    if (!line.empty()) lines.push_back(line);
    line.clear();
    width = 0;
  };
  for (const Piece& piece : pieces) {
    if (piece.space) {
      if (!line.empty()) {
        line += ' ';
        width += text_width(" ", font_size);
      }
      continue;
    }
    const double advance = text_width(piece.bytes, font_size);
    if (!line.empty() && width + advance > max_width) finish_line();
    if (!line.empty() || advance <= max_width) {
      line += piece.bytes;
      width += advance;
      continue;
    }
    // A word wider than a whole line: broken between its characters.
    for_each_code_point(piece.bytes, [&](UChar32, std::string_view bytes) {
      const double step = text_width(bytes, font_size);
      if (!line.empty() && width + step > max_width) finish_line();
      line += bytes;
      width += step;
    });
  }
  finish_line();
  return lines;
}

std::string fit_text(std::string_view text, double font_size, double max_width) {
  if (text_width(text, font_size) <= max_width) return std::string(text);
  const std::string ellipsis = "\u2026";
  const double room = max_width - text_width(ellipsis, font_size);
  std::string out;
  double width = 0;
  bool full = false;
  for_each_code_point(text, [&](UChar32 c, std::string_view bytes) {
    const double advance = text_width(bytes, font_size);
    full = full || width + advance > room;
    if (full) return;
    (void)c;
    out += bytes;
    width += advance;
  });
  return out + ellipsis;
}

}  // namespace tinyenc::plot
