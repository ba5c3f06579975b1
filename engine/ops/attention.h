// The two batched matmuls of scaled dot-product attention over strided views, so heads are read
// in place inside a fused QKV buffer and the context is written in place into [B, T, H, Dh].
#pragma once

#include <array>
#include <compare>
#include <cstdint>

#include "engine/ops/bound_primitive.h"
#include "engine/ops/runtime.h"
#include "engine/ops/view.h"

namespace tinyenc::ops {

class AttentionCore {
 public:
  explicit AttentionCore(Runtime& runtime) : runtime_(&runtime) {}

  // scores[B, H, Tq, Tk] = scale * q k^T (+ bias). The additive bias is dense with dims
  // bias_dims, each equal to the scores' or 1 (broadcast): [B, 1, 1, Tk] is a key padding mask,
  // [1, 1, Tq, Tk] an attention mask shared by the batch.
  void scores(const View4& q, const View4& k, float scale, const float* bias,
              const std::array<int64_t, 4>& bias_dims, float* scores);

  // out[B, H, Tq, Dv] (strided view; data is written) = probabilities[B, H, Tq, Tk] v[B, H, Tk,
  // Dv].
  void context(const float* probabilities, const View4& v, const View4& out);

 private:
  struct ScoresKey {
    ViewShape q, k_transposed;
    float scale;
    bool bias;
    std::array<int64_t, 4> bias_dims;
    int threads;
    auto operator<=>(const ScoresKey&) const = default;
  };
  // Where oneDNN has no kernel for a bias's broadcast as a post-op (only its reference one), the
  // matmul runs without it and the bias is added after, in one pass over the scores.
  struct ScoresPlan {
    BoundPrimitive primitive;
    bool bias_after = false;
  };
  struct ContextKey {
    ViewShape v, out;
    int64_t queries;
    int threads;
    auto operator<=>(const ContextKey&) const = default;
  };

  Runtime* runtime_;
  PrimitiveCache<ScoresKey, ScoresPlan> scores_;
  PrimitiveCache<ContextKey> context_;
};

}  // namespace tinyenc::ops
