// Cutting normalised text into the words WordPiece then splits further (Hugging Face calls this
// the pre-tokenizer).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/aligned_text.h"

namespace tinyenc {

enum class WordSplit {
  kBert,        // BERT: split on whitespace, then every punctuation character is a word alone
  kRegexWords,  // Hugging Face "Whitespace": runs of \w+ and runs of [^\w\s]+
  kWhitespace,  // Hugging Face "WhitespaceSplit": split on whitespace only
  kNone,        // no pre-tokenizer: the whole text is one word
};

struct WordRange {
  size_t first = 0;  // chars [first, last) of the text
  size_t last = 0;
  bool verbatim = false;  // one of the never_split words: looked up whole, never split
};

// A whitespace-separated word equal to one of `verbatim_words` stays whole (BERT's never_split).
std::vector<WordRange> split_words(const AlignedText& text, WordSplit split,
                                   const std::vector<std::string>& verbatim_words);

std::string_view split_name(WordSplit split);

}  // namespace tinyenc
