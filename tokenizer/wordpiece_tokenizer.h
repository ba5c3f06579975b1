// BERT's WordPiece, written out: the basic tokenizer (clean, split CJK ideographs, lower-case and
// strip accents, split on whitespace and punctuation) and then greedy longest-match-first
// splitting of each word into vocabulary pieces, "##" marking a piece that continues a word
// (google-research/bert tokenization.py; Hugging Face tokenizers' BertNormalizer,
// BertPreTokenizer, WordPiece). Every token keeps the byte range of the input it came from.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "tokenizer/text_normalizer.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/word_splitter.h"
#include "tokenizer/wordpiece_vocab.h"

namespace tinyenc {

struct WordPieceOptions {
  std::vector<NormalizeStep> normalize = bert_normalization(true, std::nullopt);
  WordSplit split = WordSplit::kBert;
  // BERT never_split: whitespace-separated words that are neither normalised nor split.
  std::vector<std::string> never_split;
  // Hugging Face added tokens ("[CLS]", "[MASK]"...): cut out of the raw text wherever they
  // occur, before any normalising, so "[MASK]" typed in a sentence is the mask token.
  std::vector<std::string> added_tokens;
  std::string unk_token = "[UNK]";
  std::string continuing_prefix = "##";
  // A longer word is one [UNK]: the greedy search is quadratic in the word's length.
  size_t max_input_chars_per_word = 100;
};

class WordPieceTokenizer : public SubwordTokenizer {
 public:
  // `source` names where the vocabulary came from, for describe() and errors. Throws
  // std::invalid_argument (naming `source`) when the vocabulary lacks the unknown token.
  WordPieceTokenizer(WordPieceVocab vocab, WordPieceOptions options, SpecialTokenIds special_ids,
                     SpecialTemplate special_template, std::string source);

  // Tokens joined by spaces, "##" pieces glued to the one before, then Hugging Face's WordPiece
  // decoder clean-up (" ." -> ".", " n't" -> "n't", ...).
  std::string decode(std::span<const int32_t> ids) const override;
  int32_t vocab_size() const override { return vocab_.size(); }
  std::optional<int32_t> token_to_id(std::string_view token) const override;
  std::string id_to_token(int32_t id) const override;
  std::string describe() const override;

  const WordPieceOptions& options() const { return options_; }

 protected:
  Encoding encode_text(std::string_view text) const override;

 private:
  void encode_segment(std::string_view text, size_t base, Encoding& out) const;
  void encode_word(const AlignedText& text, const WordRange& word, Encoding& out) const;
  void append_whole(std::string token, TokenSpan span, Encoding& out) const;

  WordPieceVocab vocab_;
  WordPieceOptions options_;
  int32_t unk_id_ = 0;
  std::string source_;
};

// The ids of the usual BERT special tokens that `vocab` holds: [PAD], [UNK], [CLS], [SEP],
// [MASK] (or the names given).
struct SpecialTokenNames {
  std::string pad = "[PAD]";
  std::string unk = "[UNK]";
  std::string cls = "[CLS]";
  std::string sep = "[SEP]";
  std::string mask = "[MASK]";
};
SpecialTokenIds find_special_ids(const WordPieceVocab& vocab, const SpecialTokenNames& names);

}  // namespace tinyenc
