#include "tokenizer/word_splitter.h"

#include <algorithm>

#include "tokenizer/char_classes.h"

namespace tinyenc {
namespace {

// BERT `_run_split_on_punc`: each punctuation character alone, the rest in runs.
void split_punctuation(const AlignedText& text, size_t first, size_t last,
                       std::vector<WordRange>& out) {
  size_t start = first;
  for (size_t i = first; i < last; ++i) {
    if (!unicode::is_bert_punctuation(text[i].code_point)) continue;
    if (start < i) out.push_back({start, i, false});
    out.push_back({i, i + 1, false});
    start = i + 1;
  }
  if (start < last) out.push_back({start, last, false});
}

// Hugging Face Whitespace pre-tokenizer, the regex \w+|[^\w\s]+ on one whitespace-free word.
void split_regex_words(const AlignedText& text, size_t first, size_t last,
                       std::vector<WordRange>& out) {
  for (size_t i = first; i < last;) {
    const bool word_char = unicode::is_regex_word_char(text[i].code_point);
    size_t end = i + 1;
    while (end < last && unicode::is_regex_word_char(text[end].code_point) == word_char) ++end;
    out.push_back({i, end, false});
    i = end;
  }
}

}  // namespace

std::vector<WordRange> split_words(const AlignedText& text, WordSplit split,
                                   const std::vector<std::string>& verbatim_words) {
  std::vector<WordRange> words;
  if (split == WordSplit::kNone) {
    if (!text.empty()) words.push_back({0, text.size(), false});
    return words;
  }
  for (size_t i = 0; i < text.size();) {
    if (unicode::is_word_separator(text[i].code_point)) {
      ++i;
      continue;
    }
    size_t last = i;
    while (last < text.size() && !unicode::is_word_separator(text[last].code_point)) ++last;
    if (!verbatim_words.empty() && std::find(verbatim_words.begin(), verbatim_words.end(),
                                             utf8_of(text, i, last)) != verbatim_words.end()) {
      words.push_back({i, last, true});
    } else if (split == WordSplit::kBert) {
      split_punctuation(text, i, last, words);
    } else if (split == WordSplit::kRegexWords) {
      split_regex_words(text, i, last, words);
    } else {
      words.push_back({i, last, false});
    }
    i = last;
  }
  return words;
}

std::string_view split_name(WordSplit split) {
  switch (split) {
    case WordSplit::kBert:
      return "BERT (whitespace, punctuation)";
    case WordSplit::kRegexWords:
      return "whitespace and \\w runs";
    case WordSplit::kWhitespace:
      return "whitespace";
    case WordSplit::kNone:
      return "none";
  }
  return "?";
}

}  // namespace tinyenc
