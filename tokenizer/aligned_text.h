// Text as code points that remember where they came from. Normalising for WordPiece (cleaning,
// lower-casing, decomposing accents) changes lengths: U+0130 "İ" lower-cases to two code points,
// "é" decomposes into "e" and a combining accent that is then dropped. Each code point here
// carries the byte range of the input character it came from, so every token can still report
// its offsets in the text the user gave.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/encoding.h"

namespace tinyenc {

struct AlignedChar {
  char32_t code_point = 0;
  TokenSpan source;  // bytes of the input character this code point came from
};

using AlignedText = std::vector<AlignedChar>;

// The code points of valid UTF-8 `text`; byte offsets count from `base` (the position of
// `text` inside a longer input).
AlignedText align_code_points(std::string_view text, size_t base = 0);

// UTF-8 of chars [first, last).
std::string utf8_of(const AlignedText& text, size_t first, size_t last);
// The input bytes chars [first, last) came from (first < last).
TokenSpan span_of(const AlignedText& text, size_t first, size_t last);

}  // namespace tinyenc
