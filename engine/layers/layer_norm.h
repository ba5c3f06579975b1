// LayerNorm over the last axis with its learned gamma and beta (Ba et al. 2016).
#pragma once

#include <cstdint>
#include <stdexcept>

#include "engine/ops/layer_norm.h"
#include "engine/ops/runtime.h"

namespace tinyenc {

class LayerNorm {
 public:
  // gamma and beta [width] stay the caller's.
  LayerNorm(Runtime& runtime, const float* gamma, const float* beta, int64_t width, float epsilon)
      : gamma_(gamma), beta_(beta), width_(width), epsilon_(epsilon), op_(runtime) {
    if (!gamma || !beta) throw std::invalid_argument("LayerNorm: missing gamma or beta");
  }

  // dst[rows, width] = LayerNorm(src); in place when src == dst.
  void operator()(const float* src, int64_t rows, float* dst) {
    op_(src, rows, width_, gamma_, beta_, epsilon_, dst);
  }

 private:
  const float* gamma_;
  const float* beta_;
  int64_t width_;
  float epsilon_;
  ops::LayerNorm op_;
};

}  // namespace tinyenc
