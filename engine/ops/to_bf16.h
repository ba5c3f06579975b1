// f32 values to bfloat16 (round to nearest even, as bf16_from_f32) through oneDNN's reorder:
// vector registers (one instruction per 16 values on avx512_bf16) and every thread, where a scalar
// loop over each bf16 Linear's input took 5-8 % of a bf16 forward pass. Where oneDNN has only its
// reference reorder for the conversion, convert_to_bf16 (engine/bf16.h) instead.
#pragma once

#include <compare>
#include <cstdint>

#include "engine/ops/bound_primitive.h"
#include "engine/ops/runtime.h"

namespace tinyenc::ops {

class ToBf16 {
 public:
  explicit ToBf16(Runtime& runtime) : runtime_(&runtime) {}

  // bits[i] = bf16(values[i]) for i < count.
  void operator()(const float* values, int64_t count, void* bits);

  // Rows of `planes` groups of `cols` values, [rows, planes, cols], to `planes` dense planes of
  // bf16, [planes, rows, cols]: bits[p][r][c] = bf16(values[r][p][c]). Fused QKV rows become
  // dense q, k and v, which oneDNN's batched matmuls multiply far faster than strided ones.
  void planes(const float* values, int64_t rows, int64_t planes, int64_t cols, void* bits);

 private:
  struct Key {
    int64_t rows, planes, cols;
    int threads;
    auto operator<=>(const Key&) const = default;
  };
  struct Conversion {
    BoundPrimitive primitive;
    bool onednn = false;  // else convert_to_bf16
  };
  Runtime* runtime_;
  PrimitiveCache<Key, Conversion> conversions_;
};

}  // namespace tinyenc::ops
