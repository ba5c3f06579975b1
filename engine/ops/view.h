// A strided 4-D view [batch, heads, rows, cols] of float memory: how the attention core
// addresses heads in place inside a fused QKV buffer instead of copying them out.
#pragma once

#include <array>
#include <compare>
#include <cstdint>

namespace tinyenc {

struct View4 {
  const float* data = nullptr;
  int64_t dims[4] = {0, 0, 0, 0};
  int64_t strides[4] = {0, 0, 0, 0};
};

// The values of a View4 (same dims) in bfloat16, at strides of their own: a dense copy of heads
// read in place from fused rows, say.
struct View4Bf16 {
  const uint16_t* data = nullptr;
  std::array<int64_t, 4> strides{};
};

// A view without its data: what a primitive depends on, usable as part of a cache key.
struct ViewShape {
  std::array<int64_t, 4> dims{};
  std::array<int64_t, 4> strides{};
  auto operator<=>(const ViewShape&) const = default;
};

inline ViewShape shape_of(const View4& view) {
  return {{view.dims[0], view.dims[1], view.dims[2], view.dims[3]},
          {view.strides[0], view.strides[1], view.strides[2], view.strides[3]}};
}

}  // namespace tinyenc
