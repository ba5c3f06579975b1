// Unicode facts about single code points that the WordPiece text pipeline asks for, with the
// exact definitions of BERT's reference tokenizer (google-research/bert tokenization.py) where it
// has its own. The Unicode data comes from ICU.
#pragma once

#include <cstdint>
#include <string>

namespace tinyenc::unicode {

// BERT `_is_whitespace`: space, \t, \n, \r and the Zs category (no-break space, ideographic
// space, ...). Cleaning turns these into a plain space.
bool is_bert_whitespace(char32_t c);
// BERT `_is_control`: any "C*" category (Cc, Cf, Co, Cs, Cn: control, format such as U+200D,
// private use, unassigned) except \t, \n and \r, which count as whitespace. Cleaning drops these.
bool is_bert_control(char32_t c);
// BERT `_is_punctuation`: every non-alphanumeric ASCII character (33-47, 58-64, 91-96, 123-126,
// so `$`, `+`, `^` count although Unicode calls them symbols) and every "P*" category.
bool is_bert_punctuation(char32_t c);
// BERT `_is_chinese_char`: the CJK Unified Ideographs blocks and extensions A-E and the
// compatibility ideographs. Hiragana, Katakana and Hangul are not in it: they are written with
// spaces or handled by WordPiece like any other letters.
bool is_cjk_ideograph(char32_t c);
// What Python's str.split() splits words on, which BERT uses after cleaning: the White_Space
// property plus the information separators U+001C-U+001F.
bool is_word_separator(char32_t c);
// A character of the regular expression class \w as Hugging Face's Whitespace pre-tokenizer
// (Rust regex, Unicode mode) has it: Alphabetic, any mark, decimal digit, connector punctuation,
// or a join control. Everything else that is not White_Space is punctuation-like to it.
bool is_regex_word_char(char32_t c);
// General category Mn (nonspacing mark): what "strip accents" removes after decomposition.
bool is_nonspacing_mark(char32_t c);

// Properties that decide whether a capital sigma ends a word (Unicode's Final_Sigma context).
bool is_cased(char32_t c);
bool is_case_ignorable(char32_t c);

// Appends the full lower-case mapping of `c` (one to three code points, as Python's
// str.lower()): U+0130 İ becomes "i̇". Capital sigma is left to the caller, whose context decides
// between σ and word-final ς.
void append_lowercase(char32_t c, std::u32string& out);
// Appends the full canonical decomposition of `c` (NFD before reordering marks; Hangul
// syllables decompose into jamo), or `c` itself when it has none.
void append_canonical_decomposition(char32_t c, std::u32string& out);
// Canonical combining class: 0 for starters; marks are put in order of it by NFD.
uint8_t combining_class(char32_t c);

}  // namespace tinyenc::unicode
