#include "tokenizer/sentencepiece_tokenizer.h"

#include <sentencepiece_processor.h>

#include <stdexcept>
#include <vector>

namespace tinyenc {
namespace {

using sentencepiece::SentencePieceProcessor;

// libsentencepiece's messages point at its own source lines ("./src/x.cc(232) [check] ...");
// say what they mean instead where that is known.
std::string explain(const sentencepiece::util::Status& status) {
  std::string message = status.error_message();
  if (message.find("ParseFromArray") != std::string::npos) {
    return "the bytes do not parse as a serialized ModelProto";
  }
  if (const size_t check = message.find(") [");
      check != std::string::npos && message.rfind("./src/", 0) == 0) {
    message.erase(0, check + 2);
  }
  while (!message.empty() && (message.back() == ' ' || message.back() == '\n')) {
    message.pop_back();
  }
  for (char& c : message) {
    if (c == '\n') c = ' ';
  }
  return message;
}

std::optional<int32_t> valid_id(int id) {
  return id >= 0 ? std::optional<int32_t>(id) : std::nullopt;
}

std::optional<int32_t> find_piece(const SentencePieceProcessor& processor, std::string_view piece) {
  // PieceToId answers unk_id for a piece it does not know: only an exact round trip counts.
  const int id = processor.PieceToId(piece);
  if (id < 0 || id >= processor.GetPieceSize() || processor.IdToPiece(id) != piece) {
    return std::nullopt;
  }
  return id;
}

}  // namespace

std::unique_ptr<SentencePieceTokenizer> SentencePieceTokenizer::from_model(
    std::string_view model, const std::string& source) {
  auto processor = std::make_unique<SentencePieceProcessor>();
  const auto status = processor->LoadFromSerializedProto(model);
  if (!status.ok()) {
    throw std::invalid_argument(source + ": not a sentencepiece model (" + explain(status) + ")");
  }
  if (processor->GetPieceSize() <= 0) {
    throw std::invalid_argument(source + ": the sentencepiece model has no pieces");
  }
  SpecialTokenIds ids;
  ids.unk = valid_id(processor->unk_id());
  ids.cls = valid_id(processor->bos_id());
  ids.sep = valid_id(processor->eos_id());
  ids.pad = valid_id(processor->pad_id());
  ids.mask = find_piece(*processor, "<mask>");
  if (!ids.mask) ids.mask = find_piece(*processor, "[MASK]");

  SpecialTemplate special_template = plain_template();
  if (ids.cls && ids.sep) {
    special_template = roberta_template(processor->IdToPiece(*ids.cls), *ids.cls,
                                        processor->IdToPiece(*ids.sep), *ids.sep);
  } else if (ids.sep) {
    special_template = eos_template(processor->IdToPiece(*ids.sep), *ids.sep);
  }
  return std::unique_ptr<SentencePieceTokenizer>(
      new SentencePieceTokenizer(std::move(processor), ids, std::move(special_template), source));
}

SentencePieceTokenizer::SentencePieceTokenizer(std::unique_ptr<SentencePieceProcessor> processor,
                                               SpecialTokenIds special_ids,
                                               SpecialTemplate special_template, std::string source)
    : SubwordTokenizer(special_ids, std::move(special_template)),
      processor_(std::move(processor)),
      source_(std::move(source)) {}

SentencePieceTokenizer::~SentencePieceTokenizer() = default;

Encoding SentencePieceTokenizer::encode_text(std::string_view text) const {
  sentencepiece::ImmutableSentencePieceText pieces;
  const auto status = processor_->Encode(text, pieces.mutable_proto());
  if (!status.ok()) {
    throw std::invalid_argument(source_ + ": sentencepiece cannot encode the text (" +
                                explain(status) + ")");
  }
  Encoding out;
  for (size_t i = 0; i < pieces.pieces_size(); ++i) {
    const auto piece = pieces.pieces(static_cast<int>(i));
    out.append(piece.piece(), static_cast<int32_t>(piece.id()), 0, TokenSource::kFirst,
               {piece.begin(), piece.end()});
  }
  return out;
}

std::string SentencePieceTokenizer::decode(std::span<const int32_t> ids) const {
  std::vector<int> checked;
  checked.reserve(ids.size());
  for (int32_t id : ids) {
    check_id(id);
    checked.push_back(id);
  }
  std::string text;
  const auto status = processor_->Decode(checked, &text);
  if (!status.ok()) {
    throw std::runtime_error(source_ + ": sentencepiece cannot decode (" + explain(status) + ")");
  }
  return text;
}

int32_t SentencePieceTokenizer::vocab_size() const { return processor_->GetPieceSize(); }

std::optional<int32_t> SentencePieceTokenizer::token_to_id(std::string_view token) const {
  return find_piece(*processor_, token);
}

std::string SentencePieceTokenizer::id_to_token(int32_t id) const {
  check_id(id);
  return processor_->IdToPiece(id);
}

std::string SentencePieceTokenizer::describe() const {
  return "sentencepiece, " + std::to_string(vocab_size()) + " pieces, from " + source_ +
         "; template: " + describe_template(special_template(), false);
}

}  // namespace tinyenc
