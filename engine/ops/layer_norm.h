// dst = (src - mean) / sqrt(var + epsilon) * gamma + beta over the last axis of [rows, width];
// in place when src == dst.
#pragma once

#include <compare>
#include <cstdint>

#include "engine/ops/bound_primitive.h"
#include "engine/ops/runtime.h"

namespace tinyenc {

namespace ops {

class LayerNorm {
 public:
  explicit LayerNorm(Runtime& runtime) : runtime_(&runtime) {}

  void operator()(const float* src, int64_t rows, int64_t width, const float* gamma,
                  const float* beta, float epsilon, float* dst);

 private:
  struct Key {
    const float* gamma;
    const float* beta;
    int64_t rows;
    int64_t width;
    float epsilon;
    int threads;
    auto operator<=>(const Key&) const = default;
  };

  Runtime* runtime_;
  PrimitiveCache<Key> plans_;
};

}  // namespace ops
}  // namespace tinyenc
