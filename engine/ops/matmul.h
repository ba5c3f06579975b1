// y[rows, out] = epilogue(x[rows, in] W^T + b) (+ residual[rows, out]): torch.nn.Linear with the
// activation and the residual add fused into the primitive as oneDNN post-ops.
#pragma once

#include <compare>
#include <cstdint>

#include "engine/ops/bound_primitive.h"
#include "engine/ops/runtime.h"
#include "engine/ops/weight_matrix.h"

namespace tinyenc {

enum class Epilogue { kNone, kGeluErf, kGeluTanh, kRelu, kTanh };

namespace ops {

class Matmul {
 public:
  explicit Matmul(Runtime& runtime) : runtime_(&runtime) {}

  // bias [out] may be null; residual, when given, is [rows, out] and may alias neither x nor y.
  void operator()(const float* x, int64_t rows, WeightMatrix& weights, const float* bias, float* y,
                  Epilogue epilogue = Epilogue::kNone, const float* residual = nullptr);

 private:
  struct Key {
    const WeightMatrix* weights;
    const float* bias;
    int64_t rows;
    Epilogue epilogue;
    bool residual;
    int threads;
    auto operator<=>(const Key&) const = default;
  };
  BoundPrimitive plan(const Key& key, WeightMatrix& weights);

  Runtime* runtime_;
  PrimitiveCache<Key> plans_;
};

}  // namespace ops
}  // namespace tinyenc
