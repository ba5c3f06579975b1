// One float at a time: the specification every SIMD path is tested against.
#pragma once

namespace tinyenc::detail {

struct VecScalar {
  using Reg = float;
  static constexpr int kWidth = 1;
  static Reg load(const float* p) { return *p; }
  static void store(float* p, Reg v) { *p = v; }
  static Reg set1(float x) { return x; }
  static Reg zero() { return 0.0f; }
  static Reg add(Reg a, Reg b) { return a + b; }
  static Reg sub(Reg a, Reg b) { return a - b; }
  static Reg mul(Reg a, Reg b) { return a * b; }
  static Reg fmadd(Reg a, Reg b, Reg c) { return a * b + c; }
  static Reg fnmadd(Reg a, Reg b, Reg c) { return c - a * b; }
  static float reduce_add(Reg v) { return v; }
  // Pair operations are never reached with one lane: the kernels' pair loops handle it.
  static Reg swap_pairs(Reg v) { return v; }
  static Reg duplicate_pairs(const float* p) { return *p; }
  static Reg negate_even(Reg v) { return -v; }
};

}  // namespace tinyenc::detail
