// The one interface the rest of tinyenc sees: text in, ids out (and back). Two families of
// subword tokenizers sit behind it: sentencepiece models (tokenizer.model, through
// libsentencepiece) and BERT WordPiece (vocab.txt or a Hugging Face tokenizer.json). Loading them
// is in load_tokenizer.h. A library user sees it as tinyenc::Tokenizer (<tinyenc/tokenizer.h>),
// which holds one of these.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "tokenizer/encoding.h"
#include "tokenizer/special_template.h"

namespace tinyenc {

// Ids of the tokens a model treats specially; absent when the vocabulary has no such token.
struct SpecialTokenIds {
  std::optional<int32_t> pad;
  std::optional<int32_t> unk;
  std::optional<int32_t> cls;  // start of a sequence: [CLS], or <s> (bos) in sentencepiece
  std::optional<int32_t> sep;  // end of a sequence: [SEP], or </s> (eos) in sentencepiece
  std::optional<int32_t> mask;
};

class SubwordTokenizer {
 public:
  virtual ~SubwordTokenizer() = default;

  // Tokens of one text, with the template's special tokens unless `add_special_tokens` is false.
  // Throws std::invalid_argument naming the byte offset when `text` is not valid UTF-8.
  Encoding encode(std::string_view text, bool add_special_tokens = true) const;
  // Tokens of a pair of texts (sentence-pair tasks): BERT gives the second text token type 1.
  Encoding encode_pair(std::string_view first, std::string_view second,
                       bool add_special_tokens = true) const;

  // Text of a sequence of ids, the inverse of encode as far as the family allows (lower-casing
  // and dropped whitespace are not undone); template special tokens and padding are left out.
  // Throws std::out_of_range for an id outside [0, vocab_size()).
  virtual std::string decode(std::span<const int32_t> ids) const = 0;

  virtual int32_t vocab_size() const = 0;
  virtual std::optional<int32_t> token_to_id(std::string_view token) const = 0;
  // Throws std::out_of_range for an id outside [0, vocab_size()).
  virtual std::string id_to_token(int32_t id) const = 0;

  const SpecialTokenIds& special_ids() const { return special_ids_; }
  const SpecialTemplate& special_template() const { return template_; }
  // A model family that knows better (say, a RoBERTa checkpoint) can replace the template the
  // loader chose from the tokenizer files.
  void set_special_template(SpecialTemplate special_template);

  // One line for people: family, vocabulary size, the file it came from, the options in force.
  virtual std::string describe() const = 0;

 protected:
  SubwordTokenizer(SpecialTokenIds special_ids, SpecialTemplate special_template);

  // The tokens of one valid UTF-8 text, no special tokens, offsets into `text`, token type 0,
  // source kFirst.
  virtual Encoding encode_text(std::string_view text) const = 0;

  // For decode() and id_to_token(): throws std::out_of_range unless 0 <= id < vocab_size().
  void check_id(int32_t id) const;

 private:
  SpecialTokenIds special_ids_;
  SpecialTemplate template_;
};

}  // namespace tinyenc
