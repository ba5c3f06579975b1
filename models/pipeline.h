// Text in, model outputs out: a model folder's tokenizer and encoder joined, with batching and
// the length limit of the model's position encoding. The one path from text to outputs: the
// public tinyenc::Model is built on it, and so are the program's `run`, `order` and `bench -m`,
// which also reach the hidden states and attention it keeps out of the public header.
//
// Errors keep the standard types the loaders throw: std::invalid_argument and std::out_of_range
// for bad input (a folder that cannot be read is the user's, not tinyenc's failure), anything
// else for a failure of tinyenc's.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/encoder.h"
#include "models/model.h"
#include "tokenizer/tokenizer.h"

namespace tinyenc {

// load_model for a folder the user named: one that cannot be read is bad input, not a failure
// of tinyenc's, so the loaders' std::runtime_error becomes std::invalid_argument. `dtype` as
// load_model takes it.
LoadedModel load_user_model(const std::filesystem::path& dir, std::string_view dtype = "");

struct PipelineOptions {
  std::optional<Pooling> pooling;  // override config.json's
  // "", "f32", "bf16", "int8" or "auto" (models/dtype_choice.h); "" is the folder's default.
  std::string dtype;
  bool truncate = false;  // cut inputs longer than the model allows instead of failing
  // Ends the message refusing a text that is too long: how this caller's user asks to cut it
  // (empty when they cannot).
  std::string truncate_hint = "use --truncate to cut it";
  // A folder without a tokenizer can still run raw ids when the caller needs no texts.
  bool require_tokenizer = true;
  // Appended to the error of a required tokenizer that does not load.
  std::string tokenizer_hint;
  // EncoderInput::position_offset of every forward pass (0 to kMaxPositionOffset).
  int64_t position_offset = 0;
};

// One input's outputs. Rows of `hidden` past the input's length never exist here.
struct TextOutput {
  Encoding encoding;
  std::vector<float> logits, probabilities;  // empty without a classification head
  // Pooled, [d_model]; empty with pooling none. As the encoder pools it: the L2 normalization a
  // model may ask for (LoadedModel::config.normalize_embeddings) is the corpus runner's
  // (models/corpus_runner.h).
  std::vector<float> embedding;
  std::vector<float> hidden;  // [tokens, d_model], when asked for
  int64_t label = -1;         // argmax of the logits
};

class Pipeline {
 public:
  explicit Pipeline(const std::filesystem::path& model_dir, const PipelineOptions& options = {});
  // An already loaded model without a tokenizer (it runs on ids): random weights, or a folder's
  // encoder alone; `name` stands for the folder in messages.
  Pipeline(const std::filesystem::path& name, LoadedModel model, const PipelineOptions& options);

  const LoadedModel& model() const { return model_; }
  bool has_tokenizer() const { return tokenizer_ != nullptr; }
  // Only with has_tokenizer() (always, unless the options made it optional).
  const SubwordTokenizer& tokenizer() const { return *tokenizer_; }
  Encoder& encoder() { return *encoder_; }
  const Encoder& encoder() const { return *encoder_; }
  const std::filesystem::path& dir() const { return dir_; }
  std::string label_name(int64_t label) const;

  // The tokenizer alone (pairs split at the first tab when `pair`); no limits checked.
  Encoding tokenize(const std::string& text, bool pair = false) const;
  // tokenize(), but of a text longer than the model takes only a prefix that holds more tokens
  // than will be kept (tokenizer/long_text.h): with the truncate option the encoding to cut,
  // without it std::invalid_argument ("more than N tokens", or "N bytes" for a text past
  // longest_prefix() that holds few tokens). Pairs are tokenized whole.
  Encoding tokenize_to_keep(const std::string& text, bool pair = false) const;
  // tokenize_to_keep() and check(), the text named in errors.
  Encoding encode(const std::string& text, bool pair = false) const;
  // An encoding of raw ids (no tokenizer needed); checked, named "--ids" in errors.
  Encoding encode_ids(const std::vector<int32_t>& ids) const;
  // Every id inside the vocabulary and the length within what the position encoding allows
  // (cut to fit with the truncate option); `what` names the input in errors.
  void check(Encoding& encoding, const std::string& what) const;

  // One padded forward pass over the encodings, as the engine returns it.
  EncoderOutput forward(const std::vector<const Encoding*>& batch,
                        const ForwardOptions& options = {});
  // Runs the encodings as one batch, split per input, in the batch's order. Packed (no padding
  // computed: EncoderInput::packed), unless the options keep attention probabilities.
  std::vector<TextOutput> run(const std::vector<Encoding>& batch, bool keep_hidden,
                              const ForwardOptions& options = {});
  // Token rows the last run() computed, padding included: the batch's tokens when packed.
  int64_t computed_tokens() const { return computed_tokens_; }

  // The position offset of the passes from now on (PipelineOptions::position_offset), for
  // experiments that run one model at several; throws std::out_of_range outside [0,
  // kMaxPositionOffset].
  void set_position_offset(int64_t position_offset);
  int64_t position_offset() const { return options_.position_offset; }
  // Whether check() and tokenize_to_keep() cut texts that are too long
  // (PipelineOptions::truncate), from now on.
  void set_truncate(bool truncate) { options_.truncate = truncate; }
  bool truncates() const { return options_.truncate; }

 private:
  // The output's sequence b as the TextOutput of batch[order[b]] (of batch[b] when order is
  // empty).
  std::vector<TextOutput> split(const std::vector<Encoding>& batch,
                                const std::vector<size_t>& order, const EncoderOutput& output,
                                bool keep_hidden) const;

  // The encoder, once model_ and tokenizer_ are in place.
  void start();

  std::filesystem::path dir_;
  PipelineOptions options_;
  LoadedModel model_;
  std::unique_ptr<SubwordTokenizer> tokenizer_;
  std::unique_ptr<Encoder> encoder_;
  int64_t computed_tokens_ = 0;
};

}  // namespace tinyenc
