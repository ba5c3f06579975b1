// tinyenc's own position-encoding kernels: the fused embedding pass, the RoPE rotation of q and
// k, and the per-head distance bias (ALiBi, T5 relative) on attention scores.
//
// Each entry point validates its arguments (ids against table sizes, shapes) and then runs the
// kernel of the requested ISA; the default is active_isa(). The scalar kernels are the
// specification: every SIMD kernel is tested against them.
#pragma once

#include <cstdint>

#include "engine/isa.h"
#include "engine/pe/position_encoding.h"

namespace tinyenc {

// out[t] = LayerNorm(scale * token_table[token_ids[t]] + position_table[position_ids[t]]
//                    + token_type_table[token_type_ids[t]])
// Position, token-type and LayerNorm terms are optional (null table / null gamma). One pass over
// the tokens: with LayerNorm, a row's statistics and its normalisation read the output row while
// it is still in L1, so it reaches memory once.
struct EmbeddingArgs {
  int64_t tokens = 0;
  int64_t d_model = 0;
  const int32_t* token_ids = nullptr;
  const float* token_table = nullptr;  // [vocab_size, d_model]
  int64_t vocab_size = 0;
  float scale = 1.0f;  // e.g. sqrt(d_model) for Vaswani-style embeddings

  const int32_t* position_ids = nullptr;  // [tokens]; null with a table means 0, 1, 2, ...
  const float* position_table = nullptr;  // [position_rows, d_model], or null for none
  int64_t position_rows = 0;

  const int32_t* token_type_ids = nullptr;  // [tokens]; null with a table means all zeros
  const float* token_type_table = nullptr;  // [token_type_rows, d_model], or null
  int64_t token_type_rows = 0;

  const float* gamma = nullptr;  // [d_model]; LayerNorm when non-null (beta required too)
  const float* beta = nullptr;
  float epsilon = 1e-12f;

  float* out = nullptr;  // [tokens, d_model]; must not alias the tables
};

// Throws std::out_of_range naming the first bad id, std::invalid_argument for bad shapes.
void embed_tokens(const EmbeddingArgs& args, Isa isa = active_isa());

// Rotates the first rotary_dim dimensions of every head of q and (optionally) k in place.
// Token t of q starts at q + t * q_stride, head h at + h * head_dim.
// cos/sin are [table_positions, rotary_dim / 2] and indexed by position_ids[t] (null: t).
struct RopeArgs {
  int64_t tokens = 0;
  int64_t heads = 0;
  int64_t head_dim = 0;
  int64_t rotary_dim = 0;  // even, <= head_dim
  RopePairing pairing = RopePairing::kHalf;
  float* q = nullptr;
  int64_t q_stride = 0;
  float* k = nullptr;  // may be null
  int64_t k_stride = 0;
  const int32_t* position_ids = nullptr;
  const float* cos = nullptr;
  const float* sin = nullptr;
  int64_t table_positions = 0;
};

void rotate_queries_keys(const RopeArgs& args, Isa isa = active_isa());

// scores[b, h, i, j] += distance_bias[h, j - i + queries - 1] for dense [batch, heads, queries,
// keys] scores; distance_bias is [heads, queries + keys - 1]. ALiBi and T5 relative biases
// depend only on j - i, so both are a sliding window over one short row per head.
struct DistanceBiasArgs {
  float* scores = nullptr;
  int64_t batch = 0;
  int64_t heads = 0;
  int64_t queries = 0;
  int64_t keys = 0;
  const float* distance_bias = nullptr;
  // The shape the table was built for, when it was built once for longer sequences than these
  // scores' (as a packed batch's runs are): [heads, table_queries + table_keys - 1], entry
  // (j - i + table_queries - 1). 0: queries and keys.
  int64_t table_queries = 0;
  int64_t table_keys = 0;
};

void add_distance_bias(const DistanceBiasArgs& args, Isa isa = active_isa());

}  // namespace tinyenc
