// One float at a time: the specification every SIMD path is tested against.
#pragma once

namespace tinyenc::detail {

struct VecScalar {
  using Reg = float;
  static constexpr int kWidth = 1;
  static Reg load(const float* p) { return *p; }
  static void store(float* p, Reg v) { *p = v; }
  static constexpr int kStreamAlignment = 4;  // "streaming" is an ordinary store
  static void stream(float* p, Reg v) { *p = v; }
  static void stream_fence() {}
  static Reg set1(float x) { return x; }
  static Reg zero() { return 0.0f; }
  static Reg add(Reg a, Reg b) { return a + b; }
  static Reg sub(Reg a, Reg b) { return a - b; }
  static Reg mul(Reg a, Reg b) { return a * b; }
  static Reg fmadd(Reg a, Reg b, Reg c) { return a * b + c; }
  static Reg fnmadd(Reg a, Reg b, Reg c) { return c - a * b; }
  static float reduce_add(Reg v) { return v; }
  // No pair operations: with one lane the kernels skip their pairwise vector loops
  // (if constexpr on kWidth) and use their element loops.
};

}  // namespace tinyenc::detail
