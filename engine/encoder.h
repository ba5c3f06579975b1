// The encoder: token embedding -> PE stage -> N self-attention layers -> pooling -> head.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/encoder_config.h"
#include "engine/encoder_weights.h"
#include "engine/layers/batch.h"
#include "engine/layers/encoder_layer.h"
#include "engine/layers/layer_norm.h"
#include "engine/layers/linear.h"
#include "engine/layers/stage_times.h"
#include "engine/layers/workspace.h"
#include "engine/ops/runtime.h"
#include "engine/pe/hooks.h"

namespace tinyenc {

// A batch of B sequences in one of two layouts.
//   Padded: each sequence padded to T = seq tokens; ids [batch, seq], positions >= length are
//     padding (computed, then ignored).
//   Packed: the sequences end to end with no padding; ids [sum of lengths], `seq` unused. The
//     linear layers, the FFN and the norms run on real tokens only, and attention runs once per
//     run of consecutive sequences of equal length: order a batch by length to make the runs
//     long. Outputs are those of the padded layout to float rounding. No attention
//     probabilities (ForwardOptions::attention_probabilities) in this layout.
struct EncoderInput {
  int64_t batch = 0;
  int64_t seq = 0;
  const int32_t* ids = nullptr;
  const int32_t* lengths = nullptr;      // [batch], each in [1, seq]; null: all seq (padded only)
  const int32_t* token_types = nullptr;  // as ids, or null (all type 0)
  bool packed = false;
  // K >= 0 added to every real token's position id, in either layout: the sequences are numbered
  // as if they began K tokens later. The shift-invariance experiment: sinusoidal adds PE(pos + K),
  // learned adds table row pos + K (std::out_of_range past the table), RoPE rotates by pos + K, so
  // q.k, which depends on (pos + K) - (pos' + K) only, moves by float rounding of the angles;
  // ALiBi and T5 relative depend on i - j alone and give bit-identical outputs. At most
  // kMaxPositionOffset.
  int64_t position_offset = 0;
};

// The largest EncoderInput::position_offset: the sinusoidal and RoPE tables hold every row up to
// seq + K, and at 2^16 a float32 angle is already only good to ~4e-3 radians.
inline constexpr int64_t kMaxPositionOffset = int64_t{1} << 16;
// Throws std::out_of_range naming the offset when it is outside [0, kMaxPositionOffset].
void check_position_offset(int64_t position_offset);

struct ForwardOptions {
  bool layer_hidden_states = false;      // keep the input of every layer and the final output
  bool attention_probabilities = false;  // keep every layer's [B, H, T, T] softmax output
  StageTimes* times = nullptr;
};

struct EncoderOutput {
  int64_t batch = 0, seq = 0, d_model = 0, heads = 0;  // seq: the longest, when packed
  // Packed: sequence b's rows begin at row starts[b] of last_hidden and layer_hidden. Empty
  // when padded: they begin at b * seq.
  std::vector<int64_t> starts;
  std::vector<float> last_hidden;    // [B, T, D] padded (rows past a length are padding);
                                     // [sum of lengths, D] packed
  std::vector<float> pooled;         // [B, D], empty for pooling none
  std::vector<float> logits;         // [B, num_labels]
  std::vector<float> probabilities;  // [B, num_labels]
  std::vector<std::vector<float>> layer_hidden;  // layers + 1 entries laid out as last_hidden
  std::vector<std::vector<float>> attention;     // layers entries of [B, H, T, T]
};

// softmax(logits) over `labels` classes, computed in double past the top logit, into
// `probabilities`: EncoderOutput::probabilities per sequence, and the probabilities of any logits
// joined later (a chunked text's weighted mean).
void label_probabilities(const float* logits, int64_t labels, float* probabilities);

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
  // Validates the config and checks that every weight the config needs is present. Every Linear
  // computes in config.dtype; throws std::invalid_argument with dtype_unsupported_reason() when
  // this CPU cannot run it.
  Encoder(EncoderConfig config, EncoderWeights weights);
  ~Encoder();
  Encoder(const Encoder&) = delete;
  Encoder& operator=(const Encoder&) = delete;

  // Throws NonFiniteOutputError when an output of a real (not padding) token is not finite.
  EncoderOutput forward(const EncoderInput& input, const ForwardOptions& options = {});

  const EncoderConfig& config() const { return config_; }
  // oneDNN's implementation of the first layer's FFN-in matmul ("gemm:jit",
  // "jit_uni_int8_1x1:avx2", "brg:avx512_core_amx_int8"...), for benchmark tables; empty before
  // the first forward().
  std::string matmul_implementation() const;
  // Number of parameters the config implies (weights actually used).
  int64_t parameter_count() const;
  // Bytes the weights take as the forward pass reads them, for config().dtype: the Linear
  // weights as their WeightMatrix stores them (f32: 4 bytes each; bf16: 2; int8: 1, plus an f32
  // scale and an s32 row sum per output channel), every other weight (embeddings, LayerNorms,
  // biases, position tables) float32, as the loader hands them over. oneDNN's reordered copies
  // of the Linear weights, made at the first forward in the layouts its kernels ask for, are not
  // counted.
  int64_t weight_bytes() const;

 private:
  // Everything the layers need to know about a new input, one job per function; together with
  // embed() it counts as the embedding stage.
  void prepare(const EncoderInput& input);
  void check_input(const EncoderInput& input);
  void compute_positions();
  void compute_key_bias();
  void embed(const EncoderInput& input, float* x);
  void pool_and_classify(EncoderOutput& output);
  void check_finite(const EncoderOutput& output) const;

  EncoderConfig config_;
  EncoderWeights weights_;
  Runtime runtime_;
  StageClock clock_;
  std::unique_ptr<PositionEncoding> position_encoding_;
  Workspace workspace_;
  std::vector<std::unique_ptr<EncoderLayer>> layers_;
  std::optional<Timed<LayerNorm>> final_norm_;
  std::optional<Linear> pooler_;
  std::optional<Linear> classifier_;

  // The batch in flight.
  int64_t batch_ = 0, seq_ = 0, rows_ = 0;
  bool packed_ = false;
  int64_t position_offset_ = 0;
  std::vector<int32_t> lengths_;       // [B]
  std::vector<int64_t> starts_;        // [B]: each sequence's first row
  std::vector<SequenceRun> runs_;      // packed: runs of equal lengths
  std::vector<int32_t> position_ids_;  // [rows]
  std::vector<float> key_bias_;        // [B, T]: 0 for tokens, -inf for padding; empty if none
};

// Sets the threads used by oneDNN and tinyenc's kernels (one OpenMP pool); 0: one per logical
// CPU this process may run on (resolve_threads, engine/threads.h).
void set_threads(int threads);

}  // namespace tinyenc
