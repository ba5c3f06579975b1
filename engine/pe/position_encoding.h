// The position-encoding kinds tinyenc runs and their parameters.
//
// Semantics (see DESIGN.md, "Position encodings"):
//   none        adds nothing: the order-blind baseline.
//   sinusoidal  Vaswani et al. 2017; added to the token embeddings.
//   learned     a trained [max_positions, d_model] table (BERT); added to the embeddings.
//   rope        Su et al. (RoFormer); rotates q and k inside attention.
//   alibi       Press et al.; a per-head linear bias -m_h * |i - j| on the attention scores.
//   relative    Raffel et al. (T5); a learned bias per (bucket of j - i, head) on the scores.
//   learned_relative  MPNet (Song et al. 2020): learned and relative together.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace tinyenc {

enum class PositionEncodingKind {
  kNone,
  kSinusoidal,
  kLearned,
  kRope,
  kAlibi,
  kRelative,
  kLearnedRelative,
};

// learned and learned_relative add rows of a learned [max_positions, d_model] table.
constexpr bool has_position_table(PositionEncodingKind kind) {
  return kind == PositionEncodingKind::kLearned || kind == PositionEncodingKind::kLearnedRelative;
}
// relative and learned_relative add a learned [num_buckets, heads] bias to the scores.
constexpr bool has_relative_bias_table(PositionEncodingKind kind) {
  return kind == PositionEncodingKind::kRelative || kind == PositionEncodingKind::kLearnedRelative;
}

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
};

}  // namespace tinyenc
