// sentencepiece models (tokenizer.model: T5, XLM-R, ALBERT, and sentencepiece's own test models)
// through libsentencepiece, which does the normalising (NFKC and its whitespace rules) and the
// unigram or BPE segmentation itself. Offsets come from its SentencePieceText, whose spans point
// into the original input bytes.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "tokenizer/tokenizer.h"

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace tinyenc {

class SentencePieceTokenizer : public SubwordTokenizer {
 public:
  // `model` is a serialized sentencepiece ModelProto (the bytes of a .model file); `source` names
  // it in errors and describe(). Throws std::invalid_argument when libsentencepiece rejects it.
  // The template is `<s> a </s>` (pairs `<s> a </s></s> b </s>`) when the model has a bos piece,
  // `a </s>` (T5) when it has only eos, and none otherwise.
  static std::unique_ptr<SentencePieceTokenizer> from_model(std::string_view model,
                                                            const std::string& source);
  ~SentencePieceTokenizer() override;

  // libsentencepiece's DecodeIds: control pieces (<s>, </s>, <pad>) give no text, U+2581 becomes
  // a space, and the unknown piece becomes " ⁇ ".
  std::string decode(std::span<const int32_t> ids) const override;
  int32_t vocab_size() const override;
  std::optional<int32_t> token_to_id(std::string_view token) const override;
  std::string id_to_token(int32_t id) const override;
  std::string describe() const override;

 protected:
  Encoding encode_text(std::string_view text) const override;

 private:
  SentencePieceTokenizer(std::unique_ptr<sentencepiece::SentencePieceProcessor> processor,
                         SpecialTokenIds special_ids, SpecialTemplate special_template,
                         std::string source);

  std::unique_ptr<sentencepiece::SentencePieceProcessor> processor_;
  std::string source_;
};

}  // namespace tinyenc
