// Text helpers of the library, for programs that show texts and tokens to people: quoting a text
// for a one-line message, UTF-8 decoding and encoding, and the Unicode classes the tokenizers
// cut Chinese and spaced scripts by. Only the standard library appears here, as in
// <tinyenc/tinyenc.h>.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace tinyenc {

// `text` with control characters escaped (\n, \t, \x01), so that a message quoting it stays one
// line.
std::string escape_control_characters(std::string_view text);

// `text` in single quotes for a message: control characters escaped (\n, \x01) so the message
// stays one line, and cut after about 60 bytes (at a character boundary).
std::string in_quotes(std::string_view text);

// Byte offset of the first invalid UTF-8 sequence in `text` (bad lead or continuation byte,
// truncated sequence, overlong encoding, surrogate, or a code point above U+10FFFF); nullopt when
// `text` is valid.
std::optional<size_t> find_invalid_utf8(std::string_view text);

// The Unicode code points of `text`. Throws Error kBadInput ("invalid UTF-8 at byte N") when it
// is not valid UTF-8.
std::u32string code_points(std::string_view text);

// Appends the UTF-8 bytes of `code_point`, which must be a Unicode scalar value (at most
// U+10FFFF, not a surrogate).
void append_utf8(char32_t code_point, std::string& out);

namespace unicode {

// The CJK Unified Ideographs blocks, extensions A-E and the compatibility ideographs (BERT's
// `_is_chinese_char`): the characters a WordPiece tokenizer makes tokens of one by one, and
// written without spaces between words. Hiragana, Katakana and Hangul are not among them.
bool is_cjk_ideograph(char32_t c);

// What Python's str.split() separates words at: the White_Space property plus the information
// separators U+001C-U+001F.
bool is_word_separator(char32_t c);

}  // namespace unicode
}  // namespace tinyenc
