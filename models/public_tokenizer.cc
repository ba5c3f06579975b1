// <tinyenc/tokenizer.h> on top of the library's tokenizers (tokenizer/load_tokenizer.h): their
// standard exceptions become tinyenc::Error, as everywhere in the public library.
#include <tinyenc/tokenizer.h>

#include <span>
#include <utility>

#include "models/public_model_impl.h"
#include "models/public_tokenizer_impl.h"
#include "tokenizer/load_tokenizer.h"
#include "tokenizer/sentencepiece_tokenizer.h"
#include "tokenizer/special_template.h"
#include "tokenizer/wordpiece_tokenizer.h"

namespace tinyenc {

Tokenizer TokenizerAccess::owning(std::unique_ptr<const SubwordTokenizer> tokenizer) {
  auto impl = std::make_unique<Tokenizer::Impl>();
  impl->tokenizer = tokenizer.get();
  impl->owned = std::move(tokenizer);
  return Tokenizer(std::move(impl));
}

Tokenizer TokenizerAccess::borrowing(const SubwordTokenizer& tokenizer) {
  auto impl = std::make_unique<Tokenizer::Impl>();
  impl->tokenizer = &tokenizer;
  return Tokenizer(std::move(impl));
}

Tokenizer::Tokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;
Tokenizer& Tokenizer::operator=(Tokenizer&&) noexcept = default;
Tokenizer::~Tokenizer() = default;

Tokenizer Tokenizer::load(const std::string& folder) {
  return guarded([&] { return TokenizerAccess::owning(load_tokenizer_from_folder(folder)); });
}

Tokenizer Tokenizer::load_file(const std::string& file) {
  return guarded([&] { return TokenizerAccess::owning(load_tokenizer_file(file)); });
}

Tokenizer Tokenizer::of(const Model& model) {
  return guarded([&] {
    const Pipeline& pipeline = ModelAccess::impl(model).pipeline;
    if (!pipeline.has_tokenizer()) throw bad_input(pipeline.dir().string() + ": no tokenizer");
    return TokenizerAccess::borrowing(pipeline.tokenizer());
  });
}

Encoding Tokenizer::encode(std::string_view text, bool add_special_tokens) const {
  return guarded([&] { return impl_->tokenizer->encode(text, add_special_tokens); });
}

Encoding Tokenizer::encode_pair(std::string_view first, std::string_view second,
                                bool add_special_tokens) const {
  return guarded([&] { return impl_->tokenizer->encode_pair(first, second, add_special_tokens); });
}

std::string Tokenizer::decode(const std::vector<int32_t>& ids) const {
  return guarded([&] { return impl_->tokenizer->decode(std::span<const int32_t>(ids)); });
}

int32_t Tokenizer::vocab_size() const { return impl_->tokenizer->vocab_size(); }

std::optional<int32_t> Tokenizer::token_to_id(std::string_view token) const {
  return guarded([&] { return impl_->tokenizer->token_to_id(token); });
}

std::string Tokenizer::id_to_token(int32_t id) const {
  return guarded([&] { return impl_->tokenizer->id_to_token(id); });
}

std::optional<int32_t> Tokenizer::unk_token_id() const {
  return impl_->tokenizer->special_ids().unk;
}

std::string Tokenizer::unk_token() const {
  const std::optional<int32_t> id = unk_token_id();
  return id ? id_to_token(*id) : std::string();
}

std::vector<int32_t> Tokenizer::template_token_ids() const {
  std::vector<int32_t> ids;
  for (const TemplateItem& item : impl_->tokenizer->special_template().single) {
    if (item.kind == TemplateItem::Kind::kSpecialToken) ids.push_back(item.id);
  }
  return ids;
}

std::string Tokenizer::template_text(bool pair) const {
  return describe_template(impl_->tokenizer->special_template(), pair);
}

std::string Tokenizer::kind() const {
  if (dynamic_cast<const SentencePieceTokenizer*>(impl_->tokenizer)) return "sentencepiece";
  if (dynamic_cast<const WordPieceTokenizer*>(impl_->tokenizer)) return "wordpiece";
  return "other";
}

std::string Tokenizer::describe() const { return impl_->tokenizer->describe(); }

}  // namespace tinyenc
