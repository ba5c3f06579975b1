#include "engine/io/utf8.h"

#include <stdexcept>

namespace tinyenc {
namespace {

// Decodes one code point at text[offset]; returns its length, or 0 when the sequence is invalid
// (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
size_t decode_one(std::string_view text, size_t offset, char32_t& code_point) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[offset + i]); };
  const unsigned char lead = byte(0);
  size_t length = 0;
  char32_t minimum = 0;
  if (lead < 0x80) {
    code_point = lead;
    return 1;
  } else if ((lead & 0xE0) == 0xC0) {
    length = 2, minimum = 0x80, code_point = lead & 0x1F;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3, minimum = 0x800, code_point = lead & 0x0F;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4, minimum = 0x10000, code_point = lead & 0x07;
  } else {
    return 0;
  }
  if (offset + length > text.size()) return 0;
  for (size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xC0) != 0x80) return 0;
    code_point = (code_point << 6) | (byte(i) & 0x3F);
  }
  if (code_point < minimum || code_point > 0x10FFFF) return 0;
  if (code_point >= 0xD800 && code_point <= 0xDFFF) return 0;
  return length;
}

}  // namespace

std::optional<size_t> find_invalid_utf8(std::string_view text) {
  char32_t code_point = 0;
  for (size_t offset = 0; offset < text.size();) {
    const size_t length = decode_one(text, offset, code_point);
    if (length == 0) return offset;
    offset += length;
  }
  return std::nullopt;
}

std::u32string decode_utf8(std::string_view text) {
  std::u32string code_points;
  code_points.reserve(text.size());
  char32_t code_point = 0;
  for (size_t offset = 0; offset < text.size();) {
    const size_t length = decode_one(text, offset, code_point);
    if (length == 0) {
      throw std::invalid_argument("invalid UTF-8 at byte " + std::to_string(offset));
    }
    code_points.push_back(code_point);
    offset += length;
  }
  return code_points;
}

void append_utf8(char32_t c, std::string& out) {
  if (c < 0x80) {
    out.push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (c >> 6)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (c >> 12)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (c >> 18)));
    out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

}  // namespace tinyenc
