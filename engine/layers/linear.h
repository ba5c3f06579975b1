// torch.nn.Linear: y = x W^T + b, with an optional fused activation and residual add. The layer
// owns how its weights are stored (WeightMatrix, in the dtype it computes in); the layers above
// only call it.
#pragma once

#include <cstdint>
#include <string>

#include "engine/dtype.h"
#include "engine/ops/matmul.h"
#include "engine/ops/runtime.h"
#include "engine/ops/weight_matrix.h"

namespace tinyenc {

class Linear {
 public:
  // The weight (any source form) is converted to `dtype` once; whatever of it is kept by pointer
  // (see WeightMatrix) and bias [out_features] (may be null) stay the caller's.
  Linear(Runtime& runtime, const LinearSource& weight, const float* bias, ComputeDtype dtype)
      : weight_(runtime, weight, dtype), bias_(bias), matmul_(runtime) {}
  Linear(Runtime& runtime, const LinearWeights& weights, ComputeDtype dtype)
      : Linear(runtime, LinearSource::of(weights), weights.bias, dtype) {}

  // y[rows, out] = epilogue(x[rows, in] W^T + b) (+ residual[rows, out]).
  void operator()(const float* x, int64_t rows, float* y, Epilogue epilogue = Epilogue::kNone,
                  const float* residual = nullptr) {
    matmul_(x, rows, weight_, bias_, y, epilogue, residual);
  }

  int64_t out_features() const { return weight_.out_features(); }
  int64_t in_features() const { return weight_.in_features(); }
  // Whether the weight source given at construction must stay alive (WeightMatrix::keeps_source).
  bool keeps_weight_source() const { return weight_.keeps_source(); }
  // oneDNN's implementation of the last call's primitive; empty before the first call.
  const std::string& implementation() const { return matmul_.implementation(); }

 private:
  WeightMatrix weight_;
  const float* bias_;
  ops::Matmul matmul_;
};

}  // namespace tinyenc
