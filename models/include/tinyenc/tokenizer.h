// A model's tokenizer on its own: texts in, tokens and ids out, with each token's byte range in
// the text (what `tinyenc tokenize` shows). Two families sit behind it: sentencepiece
// (tokenizer.model) and BERT WordPiece (vocab.txt or a Hugging Face tokenizer.json).
//
//   tinyenc::Tokenizer tokenizer = tinyenc::Tokenizer::load("models/pretrained/order-rope");
//   tinyenc::Encoding encoding = tokenizer.encode("小明打小红");  // encoding.ids, .tokens, ...
//
//   tinyenc::Model model = tinyenc::Model::load("models/pretrained/order-rope");
//   tinyenc::Tokenizer same = tinyenc::Tokenizer::of(model);  // the one embed() uses
//
// Only the standard library appears here, as in <tinyenc/tinyenc.h>.
#pragma once

#include <tinyenc/encoding.h>
#include <tinyenc/tinyenc.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tinyenc {

class Tokenizer {
 public:
  // The tokenizer of a model folder in the Hugging Face layout: the first of tokenizer.model
  // (sentencepiece), tokenizer.json (WordPiece) and vocab.txt (WordPiece) that exists;
  // tokenizer_config.json, when present, gives do_lower_case and the special tokens' names.
  // Throws Error kBadInput naming the folder, or the file and field at fault.
  static Tokenizer load(const std::string& folder);
  // One tokenizer file, recognised by its name: *.model is sentencepiece, *.json a
  // tokenizer.json, anything else a vocab.txt; a tokenizer_config.json beside it is read too.
  // Throws Error kBadInput naming the file (and the field).
  static Tokenizer load_file(const std::string& file);
  // The tokenizer `model` encodes its texts with, special-token template included (a model
  // family can choose its own: RoBERTa's <s> a </s></s> b </s>). It refers to the model's
  // tokenizer: use it while `model` lives. Throws Error kBadInput when the model has none.
  static Tokenizer of(const Model& model);

  Tokenizer(Tokenizer&&) noexcept;
  Tokenizer& operator=(Tokenizer&&) noexcept;
  ~Tokenizer();

  // The tokens of one text, with the template's special tokens ([CLS] a [SEP], <s> a </s>)
  // unless `add_special_tokens` is false. Throws Error kBadInput naming the byte offset when
  // `text` is not valid UTF-8.
  Encoding encode(std::string_view text, bool add_special_tokens = true) const;
  // The tokens of a pair of texts (sentence-pair tasks): BERT's template gives the second text
  // and its [SEP] token type 1. Throws as encode() does.
  Encoding encode_pair(std::string_view first, std::string_view second,
                       bool add_special_tokens = true) const;
  // The text of a sequence of ids, the inverse of encode() as far as the family allows
  // (lower-casing and dropped whitespace are not undone); template tokens and padding are left
  // out. Throws Error kBadInput for an id outside [0, vocab_size()).
  std::string decode(const std::vector<int32_t>& ids) const;

  int32_t vocab_size() const;  // ids run from 0 to vocab_size() - 1
  // The id of a vocabulary piece ("▁the", "##ing", "[CLS]"); nullopt when it has none.
  std::optional<int32_t> token_to_id(std::string_view token) const;
  // The piece of an id; throws Error kBadInput outside [0, vocab_size()).
  std::string id_to_token(int32_t id) const;

  // The id every piece of text the vocabulary lacks becomes (sentencepiece's <unk>, WordPiece's
  // [UNK]) and its piece; nullopt and "" when the vocabulary has no such token.
  std::optional<int32_t> unk_token_id() const;
  std::string unk_token() const;
  // The ids of the special tokens the template puts around one text, in order: [CLS] [SEP],
  // <s> </s>, T5's </s>; empty for a template that adds none.
  std::vector<int32_t> template_token_ids() const;
  // The template as one line: "[CLS] $A [SEP]", or with `pair` "[CLS] $A [SEP] $B [SEP]" ($A,
  // $B: the texts).
  std::string template_text(bool pair = false) const;

  // The family: "sentencepiece" or "wordpiece" ("other" for one added later).
  std::string kind() const;
  // One line for people: family, vocabulary size, the file it came from, the options in force.
  std::string describe() const;

 private:
  struct Impl;
  friend struct TokenizerAccess;  // the rest of the library (models/public_tokenizer_impl.h)
  explicit Tokenizer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tinyenc
