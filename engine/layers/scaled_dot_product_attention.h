// softmax(q k^T / sqrt(head_dim) + bias) v for every head (Vaswani et al. 2017, eq. 1), reading
// q, k and v in place from fused QKV rows [B, T, 3, H, head_dim] and writing the context as
// [B, T, H, head_dim] = [B, T, D]. The position encoding's hooks act here: RoPE rotates q and k,
// ALiBi and T5 add their bias to the scores.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/buffer.h"
#include "engine/layers/batch.h"
#include "engine/ops/attention.h"
#include "engine/ops/runtime.h"
#include "engine/ops/to_bf16.h"
#include "engine/pe/hooks.h"

namespace tinyenc {

class ScaledDotProductAttention {
 public:
  // bf16_products: q k^T and the probabilities times v with bf16 operands (ops::AttentionCore).
  ScaledDotProductAttention(Runtime& runtime, int64_t heads, int64_t head_dim,
                            const PositionEncoding& position_encoding, AlignedBuffer& scores,
                            bool bf16_products = false);

  // qkv is modified: RoPE rotates q and k in place.
  void operator()(float* qkv, const Batch& batch, float* context);

 private:
  // Attention over b sequences of t rows each, laid end to end from qkv (q and k already
  // rotated); key_bias as AttentionCore::scores takes a [b, 1, 1, t] mask.
  // bf16: the products take bf16 operands, in our own kernels (own_bf16_) or in oneDNN's from
  // q16: the same rows' q in bf16, dense [b * t, d], with k and v `plane` elements apart after it
  // (null otherwise).
  void attend(const float* qkv, bool bf16, const uint16_t* q16, int64_t plane, int64_t b, int64_t t,
              const float* key_bias, std::vector<std::vector<float>>* probabilities,
              float* context);

  // From kMinBf16Keys keys, bf16 and int8 models take the products with bf16 operands: in
  // tinyenc's own kernels (ops/bf16_attention.h) on a CPU with AVX512_BF16 where oneDNN may
  // not use AMX (none, or ONEDNN_MAX_CPU_ISA below it: the way to compare both on one machine);
  // where it may, in oneDNN's, whose brgemm kernels then use the tiles. Below it, and in f32
  // models, those of up to short_attention_max_keys() keys run in tinyenc's own f32 kernels
  // (ops/short_attention.h), longer ones in oneDNN's.
  static constexpr int64_t kMinBf16Keys = 32;
  int64_t heads_;
  int64_t head_dim_;
  const PositionEncoding* position_encoding_;
  AlignedBuffer* scores_;
  ops::AttentionCore core_;
  bool bf16_products_;
  bool own_bf16_;  // bf16 products in ops/bf16_attention.h's kernels
  ops::ToBf16 to_bf16_;
  AlignedBuffer qkv16_;  // bf16_products: q, k and v in bf16, as three planes [3, tokens, d]
};

}  // namespace tinyenc
