// torch.nn.Linear: y = x W^T + b, with an optional fused activation and residual add. The layer
// owns how its weights are stored (WeightMatrix); the layers above only call it.
#pragma once

#include <cstdint>

#include "engine/ops/matmul.h"
#include "engine/ops/runtime.h"
#include "engine/ops/weight_matrix.h"

namespace tinyenc {

class Linear {
 public:
  // weight [out_features, in_features] and bias [out_features] (may be null) stay the caller's.
  Linear(Runtime& runtime, const float* weight, const float* bias, int64_t out_features,
         int64_t in_features)
      : weight_(runtime, weight, out_features, in_features), bias_(bias), matmul_(runtime) {}

  // y[rows, out] = epilogue(x[rows, in] W^T + b) (+ residual[rows, out]).
  void operator()(const float* x, int64_t rows, float* y, Epilogue epilogue = Epilogue::kNone,
                  const float* residual = nullptr) {
    matmul_(x, rows, weight_, bias_, y, epilogue, residual);
  }

  int64_t out_features() const { return weight_.out_features(); }
  int64_t in_features() const { return weight_.in_features(); }

 private:
  WeightMatrix weight_;
  const float* bias_;
  ops::Matmul matmul_;
};

}  // namespace tinyenc
