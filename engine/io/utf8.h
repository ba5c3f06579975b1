// UTF-8 decoding shared by the tokenizers and the tools: text must be valid UTF-8 before it is
// split.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tinyenc {

// Byte offset of the first invalid sequence (bad lead or continuation byte, truncated sequence,
// overlong encoding, surrogate, or a code point above U+10FFFF); nullopt when `text` is valid.
std::optional<size_t> find_invalid_utf8(std::string_view text);

// The code points of `text`; throws std::invalid_argument naming the byte offset when invalid.
std::u32string decode_utf8(std::string_view text);

// Appends the UTF-8 encoding of a code point (must be a Unicode scalar value).
void append_utf8(char32_t code_point, std::string& out);

}  // namespace tinyenc
