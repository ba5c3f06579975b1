// The encoder: token embedding -> PE stage -> N self-attention layers -> pooling -> head.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/buffer.h"
#include "engine/encoder_config.h"
#include "engine/encoder_weights.h"
#include "engine/layers/layer_norm.h"
#include "engine/layers/linear.h"
#include "engine/ops/attention.h"
#include "engine/ops/runtime.h"
#include "engine/ops/softmax.h"
#include "engine/pe/rope.h"
#include "engine/pe/sinusoidal.h"

namespace tinyenc {

// A batch of B sequences padded to the longest, T tokens each.
struct EncoderInput {
  int64_t batch = 0;
  int64_t seq = 0;
  const int32_t* ids = nullptr;          // [batch, seq]; positions >= length are padding
  const int32_t* lengths = nullptr;      // [batch], each in [1, seq]; null: all seq
  const int32_t* token_types = nullptr;  // [batch, seq] or null (all type 0)
};

// Seconds spent per stage, accumulated over forward calls (for `tinyenc bench`).
struct StageTimes {
  double embed = 0, qkv = 0, attention = 0, output_projection = 0, ffn = 0, norms = 0, head = 0;
  double total() const { return embed + qkv + attention + output_projection + ffn + norms + head; }
};

struct ForwardOptions {
  bool layer_hidden_states = false;      // keep the input of every layer and the final output
  bool attention_probabilities = false;  // keep every layer's [B, H, T, T] softmax output
  StageTimes* times = nullptr;
};

struct EncoderOutput {
  int64_t batch = 0, seq = 0, d_model = 0, heads = 0;
  std::vector<float> last_hidden;    // [B, T, D]; rows past a sequence's length are padding
  std::vector<float> pooled;         // [B, D], empty for pooling none
  std::vector<float> logits;         // [B, num_labels]
  std::vector<float> probabilities;  // [B, num_labels]
  std::vector<std::vector<float>> layer_hidden;  // layers + 1 entries of [B, T, D]
  std::vector<std::vector<float>> attention;     // layers entries of [B, H, T, T]
};

// forward() found NaN or Inf among the outputs of a sequence's tokens: the weights overflow
// float32 on this input. An error, never an answer: NaN compares false with everything, so an
// argmax or a distance computed from it would quietly say something false.
struct NonFiniteOutputError : std::runtime_error {
  NonFiniteOutputError(int64_t sequence, const std::string& what)
      : std::runtime_error(what), sequence(sequence) {}
  int64_t sequence;  // its index in the batch
};

class Encoder {
 public:
  // Validates the config and checks that every weight the config needs is present.
  Encoder(EncoderConfig config, EncoderWeights weights);
  ~Encoder();
  Encoder(const Encoder&) = delete;
  Encoder& operator=(const Encoder&) = delete;

  // Throws NonFiniteOutputError when an output of a real (not padding) token is not finite.
  EncoderOutput forward(const EncoderInput& input, const ForwardOptions& options = {});

  const EncoderConfig& config() const { return config_; }
  // Number of parameters the config implies (weights actually used).
  int64_t parameter_count() const;

 private:
  struct Layer;
  void prepare(const EncoderInput& input);
  void embed(const EncoderInput& input);
  void attention(Layer& layer, const float* x, float* context, const ForwardOptions& options,
                 EncoderOutput& output);
  void pool_and_classify(const EncoderInput& input, EncoderOutput& output);
  void check_finite(const EncoderOutput& output) const;

  EncoderConfig config_;
  EncoderWeights weights_;
  Runtime runtime_;
  ops::AttentionCore attention_core_;
  ops::Softmax softmax_;
  std::vector<std::unique_ptr<Layer>> layers_;
  std::unique_ptr<LayerNorm> final_norm_;
  std::unique_ptr<Linear> pooler_;
  std::unique_ptr<Linear> classifier_;
  std::optional<SinusoidalTable> sinusoidal_;
  std::optional<RopeTable> rope_;
  std::vector<float> alibi_slopes_;

  // Per-shape state, rebuilt when (B, T) changes; buffers only grow.
  int64_t batch_ = 0, seq_ = 0;
  std::vector<int32_t> lengths_;
  std::vector<int32_t> position_ids_;  // [B * T]
  std::vector<float> key_bias_;        // [B, T]: 0 for tokens, -inf for padding; empty if none
  std::vector<float> distance_bias_;   // [H, 2T - 1] for ALiBi / relative
  AlignedBuffer hidden_, residual_, normed_, qkv_, scores_, context_, ffn_;
};

// Sets the threads used by oneDNN and tinyenc's kernels (one OpenMP pool); 0 = physical cores.
void set_threads(int threads);

}  // namespace tinyenc
