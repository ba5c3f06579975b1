// The position-encoding kinds tinyenc runs and their parameters. Each kind describes itself in
// engine/pe/kinds/ (kind_description.h); the built-in ones are:
//   none        adds nothing: the order-blind baseline.
//   sinusoidal  Vaswani et al. 2017; added to the token embeddings.
//   learned     a trained [max_positions, d_model] table (BERT); added to the embeddings.
//   rope        Su et al. (RoFormer); rotates q and k inside attention.
//   alibi       Press et al.; a per-head linear bias -m_h * |i - j| on the attention scores.
//   relative    Raffel et al. (T5); a learned bias per (bucket of j - i, head) on the scores.
//   learned_relative  MPNet (Song et al. 2020): learned and relative together.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "engine/pe/kind_description.h"

namespace tinyenc {

// A kind's value is its place in the registry's list (engine/pe/registry.cc); the built-in kinds
// are named here so that code can name them. A kind added later needs no name here: it is found by
// its own name (parse_position_encoding).
enum class PositionEncodingKind {
  kNone,
  kSinusoidal,
  kLearned,
  kRope,
  kAlibi,
  kRelative,
  kLearnedRelative,
};

// Kinds that add rows of a learned [max_positions, d_model] table (learned, learned_relative).
bool has_position_table(PositionEncodingKind kind);
// Kinds that add a learned [num_buckets, heads] bias to the scores (relative, learned_relative).
bool has_relative_bias_table(PositionEncodingKind kind);

std::string_view position_encoding_name(PositionEncodingKind kind);
std::optional<PositionEncodingKind> parse_position_encoding(std::string_view name);

// Which dimensions share one frequency in the sinusoidal table.
enum class SinusoidalLayout {
  kInterleaved,  // dim 2i = sin, 2i+1 = cos (the seed module, Vaswani et al.)
  kConcat,       // dims [0, d/2) = sin, [d/2, d) = cos (fairseq, Marian, Tensor2Tensor)
};

std::string_view sinusoidal_layout_name(SinusoidalLayout layout);
std::optional<SinusoidalLayout> parse_sinusoidal_layout(std::string_view name);

struct SinusoidalParams {
  SinusoidalLayout layout = SinusoidalLayout::kInterleaved;
  double base = 10000.0;
};

// Which dimensions of a head are rotated together by RoPE.
enum class RopePairing {
  kHalf,         // i with i + rotary_dim/2 (rotate_half: GPT-NeoX, LLaMA, Hugging Face)
  kInterleaved,  // 2i with 2i + 1 (GPT-J, RoFormer, the paper)
};

std::string_view rope_pairing_name(RopePairing pairing);
std::optional<RopePairing> parse_rope_pairing(std::string_view name);

struct RopeParams {
  RopePairing pairing = RopePairing::kHalf;
  double theta = 10000.0;
  int64_t rotary_dim = 0;  // 0 means the whole head; otherwise even and <= head_dim
};

struct RelativeParams {
  int64_t num_buckets = 32;
  int64_t max_distance = 128;
};

// Everything that defines a model's position encoding.
struct PositionEncodingConfig {
  PositionEncodingKind kind = PositionEncodingKind::kNone;
  SinusoidalParams sinusoidal;
  bool scale_embeddings = false;  // multiply token embeddings by sqrt(d_model) (Vaswani et al.)
  int64_t max_positions = 512;    // learned: rows of the table
  // learned, RoBERTa style: positions count from padding_idx + 1 and pads get padding_idx;
  // -1 means plain 0, 1, 2, ...
  int64_t padding_idx = -1;
  RopeParams rope;
  RelativeParams relative;
  // Parameters of kinds that keep no field above, by name (filled by config parsing from the
  // kind's description).
  std::map<std::string, ParameterValue, std::less<>> parameters;
};

// What a position encoding sees of the model: its width, its heads and its own config.
// EncoderConfig (engine/encoder_config.h) extends it.
struct EncoderShape {
  int64_t d_model = 0;
  int64_t heads = 0;
  PositionEncodingConfig position_encoding;

  int64_t head_dim() const { return heads > 0 ? d_model / heads : 0; }
  // RoPE rotary dimension actually used (0 in the config means the whole head).
  int64_t rotary_dim() const {
    return position_encoding.rope.rotary_dim > 0 ? position_encoding.rope.rotary_dim : head_dim();
  }
};

// The learned tables a kind may read, null when the model has none. EncoderWeights
// (engine/encoder_weights.h) extends it.
struct PositionEncodingWeights {
  const float* position_embeddings = nullptr;  // learned: [max_positions, d_model]
  const float* relative_bias = nullptr;        // relative: [num_buckets, heads], shared by layers
};

}  // namespace tinyenc
