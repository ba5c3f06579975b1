// In-place softmax over the last axis of [rows, cols].
#pragma once

#include <compare>
#include <cstdint>

#include "engine/ops/bound_primitive.h"
#include "engine/ops/runtime.h"

namespace tinyenc {

namespace ops {

class Softmax {
 public:
  explicit Softmax(Runtime& runtime) : runtime_(&runtime) {}
  void operator()(float* data, int64_t rows, int64_t cols);

 private:
  struct Key {
    int64_t rows;
    int64_t cols;
    int threads;
    auto operator<=>(const Key&) const = default;
  };

  Runtime* runtime_;
  PrimitiveCache<Key> plans_;
};

}  // namespace ops
}  // namespace tinyenc
