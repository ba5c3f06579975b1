// Text in, model outputs out: a model folder's tokenizer and encoder joined, with batching and
// the length limit of the model's position encoding. What `run`, `order` and `bench -m` share.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/encoder.h"
#include "models/model.h"
#include "tokenizer/tokenizer.h"

namespace tinyenc::cli {

// load_model for a folder the user named: one that cannot be read is bad input (exit 2), not a
// failure of tinyenc's, so the loaders' std::runtime_error becomes std::invalid_argument.
LoadedModel load_user_model(const std::filesystem::path& dir);

struct PipelineOptions {
  std::optional<Pooling> pooling;  // override config.json's
  bool truncate = false;           // cut inputs longer than the model allows instead of failing
};

// One input's outputs. Rows of `hidden` past the input's length never exist here.
struct TextOutput {
  Encoding encoding;
  std::vector<float> logits, probabilities;  // empty without a classification head
  std::vector<float> embedding;              // pooled, [d_model]; empty with pooling none
  std::vector<float> hidden;                 // [tokens, d_model], when asked for
  int64_t label = -1;                        // argmax of the logits
};

class Pipeline {
 public:
  Pipeline(const std::filesystem::path& model_dir, const PipelineOptions& options);

  const LoadedModel& model() const { return model_; }
  const Tokenizer& tokenizer() const { return *tokenizer_; }
  Encoder& encoder() { return *encoder_; }
  const std::filesystem::path& dir() const { return dir_; }
  std::string label_name(int64_t label) const;

  // Tokenizes (pairs split at the first tab when `pair`), checks the length limit.
  Encoding encode(const std::string& text, bool pair = false) const;
  // An encoding of raw ids (no tokenizer); the ids are checked against the vocabulary.
  Encoding encode_ids(const std::vector<int32_t>& ids) const;

  // Runs the encodings as one padded batch.
  std::vector<TextOutput> run(const std::vector<Encoding>& batch, bool keep_hidden,
                              const ForwardOptions& options = {}, EncoderOutput* raw = nullptr);

 private:
  void check_length(Encoding& encoding, const std::string& what) const;

  std::filesystem::path dir_;
  PipelineOptions options_;
  LoadedModel model_;
  std::unique_ptr<Tokenizer> tokenizer_;
  std::unique_ptr<Encoder> encoder_;
};

}  // namespace tinyenc::cli
