// The two batched matmuls of scaled dot-product attention over strided views, so heads are read
// in place inside a fused QKV buffer and the context is written in place into [B, T, H, Dh].
//
// In f32, or with bf16 operands and f32 sums (bf16 and int8 models, where the CPU runs bf16
// matmuls): q, k and v then come as bf16 copies at strides of their own (the attention layer
// makes them dense planes: oneDNN 2.6 runs strided bf16 heads through gemm:jit, 20x slower on
// AMX than its brgemm on dense ones), the probabilities are rounded to bf16 here, and scores and
// context stay f32. Each product ran 1.9x faster so on AMD Zen 4 (12 heads of 128 x 64, one
// thread); the roundings add at most 2^-8 of each product's magnitude, less than bf16 weights
// or int8 activations already do. Where oneDNN has no acceptable bf16 kernel for a shape, that
// product runs in f32.
#pragma once

#include <array>
#include <compare>
#include <cstdint>

#include "engine/buffer.h"
#include "engine/ops/bound_primitive.h"
#include "engine/ops/runtime.h"
#include "engine/ops/to_bf16.h"
#include "engine/ops/view.h"

namespace tinyenc::ops {

class AttentionCore {
 public:
  explicit AttentionCore(Runtime& runtime) : runtime_(&runtime), to_bf16_(runtime) {}

  // scores[B, H, Tq, Tk] = scale * q k^T (+ bias). The additive bias is dense with dims
  // bias_dims, each equal to the scores' or 1 (broadcast): [B, 1, 1, Tk] is a key padding mask,
  // [1, 1, Tq, Tk] an attention mask shared by the batch. q16 and k16, when their data is not
  // null, are q and k in bf16: the product is then taken from them.
  void scores(const View4& q, const View4& k, float scale, const float* bias,
              const std::array<int64_t, 4>& bias_dims, float* scores, const View4Bf16& q16 = {},
              const View4Bf16& k16 = {});

  // out[B, H, Tq, Dv] (strided view; data is written) = probabilities[B, H, Tq, Tk] v[B, H, Tk,
  // Dv]. v16, when its data is not null, is v in bf16: the probabilities are then rounded to
  // bf16 and multiplied by it.
  void context(const float* probabilities, const View4& v, const View4& out,
               const View4Bf16& v16 = {});

  // Whether the last scores() and context() calls multiplied bf16 operands.
  bool scores_in_bf16() const { return scores_in_bf16_; }
  bool context_in_bf16() const { return context_in_bf16_; }

 private:
  struct ScoresKey {
    ViewShape q, k_transposed;
    float scale;
    bool bias;
    bool bf16;
    std::array<int64_t, 4> q16_strides, k16_transposed_strides;  // when bf16
    std::array<int64_t, 4> bias_dims;
    int threads;
    auto operator<=>(const ScoresKey&) const = default;
  };
  // Where oneDNN has no kernel for a bias's broadcast as a post-op (only its reference one), the
  // matmul runs without it and the bias is added after, in one pass over the scores.
  struct ScoresPlan {
    BoundPrimitive primitive;
    bool bias_after = false;
    bool bf16 = false;
  };
  struct ContextKey {
    ViewShape v, out;
    int64_t queries;
    bool bf16;
    std::array<int64_t, 4> v16_strides;  // when bf16
    int threads;
    auto operator<=>(const ContextKey&) const = default;
  };
  struct ContextPlan {
    BoundPrimitive primitive;
    bool bf16 = false;
  };

  Runtime* runtime_;
  PrimitiveCache<ScoresKey, ScoresPlan> scores_;
  PrimitiveCache<ContextKey, ContextPlan> context_;
  ToBf16 to_bf16_;
  AlignedBuffer probabilities16_;  // the probabilities in bf16, for a bf16 context product
  bool scores_in_bf16_ = false, context_in_bf16_ = false;
};

}  // namespace tinyenc::ops
