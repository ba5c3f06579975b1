#include "tokenizer/aligned_text.h"

#include <algorithm>

#include "engine/io/utf8.h"

namespace tinyenc {
namespace {

// Byte length of the UTF-8 sequence that starts with `lead` (the text is already validated).
size_t sequence_length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead & 0xE0) == 0xC0) return 2;
  if ((lead & 0xF0) == 0xE0) return 3;
  return 4;
}

}  // namespace

AlignedText align_code_points(std::string_view text, size_t base) {
  const std::u32string code_points = decode_utf8(text);
  AlignedText out;
  out.reserve(code_points.size());
  size_t offset = 0;
  for (char32_t c : code_points) {
    const size_t length = sequence_length(static_cast<unsigned char>(text[offset]));
    out.push_back({c, {base + offset, base + offset + length}});
    offset += length;
  }
  return out;
}

std::string utf8_of(const AlignedText& text, size_t first, size_t last) {
  std::string out;
  out.reserve(last - first);
  for (size_t i = first; i < last; ++i) append_utf8(text[i].code_point, out);
  return out;
}

TokenSpan span_of(const AlignedText& text, size_t first, size_t last) {
  // Reordering combining marks can move a mark ahead of the base it came after: take the hull.
  TokenSpan span = text[first].source;
  for (size_t i = first + 1; i < last; ++i) {
    span.begin = std::min(span.begin, text[i].source.begin);
    span.end = std::max(span.end, text[i].source.end);
  }
  return span;
}

}  // namespace tinyenc
