#include "tools/tinyenc/plot/text_metrics.h"

#include <cstddef>

namespace tinyenc::plot {
namespace {

// The East_Asian_Width Wide and Fullwidth ranges that matter for text people type (Unicode
// 15, UAX #11), without the rarely seen symbols.
bool is_wide(char32_t c) {
  return (c >= 0x1100 && c <= 0x115F) ||    // Hangul Jamo initials
         (c >= 0x2E80 && c <= 0x303E) ||    // CJK radicals, punctuation
         (c >= 0x3041 && c <= 0x33FF) ||    // Hiragana, Katakana, CJK compatibility
         (c >= 0x3400 && c <= 0x4DBF) ||    // CJK extension A
         (c >= 0x4E00 && c <= 0x9FFF) ||    // CJK unified ideographs
         (c >= 0xA000 && c <= 0xA4CF) ||    // Yi
         (c >= 0xAC00 && c <= 0xD7A3) ||    // Hangul syllables
         (c >= 0xF900 && c <= 0xFAFF) ||    // CJK compatibility ideographs
         (c >= 0xFE30 && c <= 0xFE4F) ||    // CJK compatibility forms
         (c >= 0xFF00 && c <= 0xFF60) ||    // full-width forms
         (c >= 0xFFE0 && c <= 0xFFE6) ||    // full-width signs
         (c >= 0x1F300 && c <= 0x1F64F) ||  // pictographs, emoticons
         (c >= 0x1F900 && c <= 0x1F9FF) ||  // supplemental pictographs
         (c >= 0x20000 && c <= 0x3FFFD);    // CJK extensions B..
}

// Calls visit(code point, its bytes) for each character; an invalid byte is visited as U+FFFD.
template <typename Visit>
void for_each_code_point(std::string_view text, Visit visit) {
  size_t i = 0;
  while (i < text.size()) {
    const unsigned char lead = static_cast<unsigned char>(text[i]);
    const int length = lead < 0x80         ? 1
                       : (lead >> 5) == 6  ? 2
                       : (lead >> 4) == 14 ? 3
                       : (lead >> 3) == 30 ? 4
                                           : 0;
    if (length == 0 || i + length > text.size()) {
      visit(U'\uFFFD', text.substr(i, 1));
      ++i;
      continue;
    }
    char32_t c = length == 1 ? lead : lead & (0x7F >> length);
    bool valid = true;
    for (int k = 1; k < length; ++k) {
      const unsigned char next = static_cast<unsigned char>(text[i + k]);
      valid = valid && (next & 0xC0) == 0x80;
      c = (c << 6) | (next & 0x3F);
    }
    if (!valid) {
      visit(U'\uFFFD', text.substr(i, 1));
      ++i;
      continue;
    }
    visit(c, text.substr(i, static_cast<size_t>(length)));
    i += static_cast<size_t>(length);
  }
}

bool is_zero_width(char32_t c) {
  return (c >= 0x0300 && c <= 0x036F) ||  // combining diacritical marks
         c == 0x200B || c == 0x200C || c == 0x200D || (c >= 0xFE00 && c <= 0xFE0F);
}

}  // namespace

int display_columns(std::string_view text) {
  int columns = 0;
  for_each_code_point(text, [&](char32_t c, std::string_view) {
    columns += is_zero_width(c) ? 0 : is_wide(c) ? 2 : 1;
  });
  return columns;
}

double text_width(std::string_view text, double font_size) {
  double em = 0;
  for_each_code_point(text, [&](char32_t c, std::string_view) {
    em += is_zero_width(c) ? 0.0 : is_wide(c) ? 1.0 : 0.6;
  });
  return em * font_size;
}

std::string fit_text(std::string_view text, double font_size, double max_width) {
  if (text_width(text, font_size) <= max_width) return std::string(text);
  const std::string ellipsis = "\u2026";
  const double room = max_width - text_width(ellipsis, font_size);
  std::string out;
  double width = 0;
  bool full = false;
  for_each_code_point(text, [&](char32_t c, std::string_view bytes) {
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
