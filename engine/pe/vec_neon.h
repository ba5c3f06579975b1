// Four floats in a 128-bit Advanced SIMD register (AArch64).
#pragma once

#include <arm_neon.h>

namespace tinyenc::detail {

struct VecNeon {
  using Reg = float32x4_t;
  static constexpr int kWidth = 4;
  static Reg load(const float* p) { return vld1q_f32(p); }
  static void store(float* p, Reg v) { vst1q_f32(p, v); }
  // No non-temporal store intrinsic: "streaming" is an ordinary store.
  static constexpr int kStreamAlignment = 16;
  static void stream(float* p, Reg v) { vst1q_f32(p, v); }
  static void stream_fence() {}
  static Reg set1(float x) { return vdupq_n_f32(x); }
  static Reg zero() { return vdupq_n_f32(0.0f); }
  static Reg add(Reg a, Reg b) { return vaddq_f32(a, b); }
  static Reg sub(Reg a, Reg b) { return vsubq_f32(a, b); }
  static Reg mul(Reg a, Reg b) { return vmulq_f32(a, b); }
  static Reg fmadd(Reg a, Reg b, Reg c) { return vfmaq_f32(c, a, b); }
  static Reg fnmadd(Reg a, Reg b, Reg c) { return vfmsq_f32(c, a, b); }
  static float reduce_add(Reg v) { return vaddvq_f32(v); }
  static Reg swap_pairs(Reg v) { return vrev64q_f32(v); }
  static Reg duplicate_pairs(const float* p) {
    const float32x2_t low = vld1_f32(p);
    return vcombine_f32(vdup_lane_f32(low, 0), vdup_lane_f32(low, 1));
  }
  static Reg negate_even(Reg v) {
    static const float kSigns[4] = {-1.0f, 1.0f, -1.0f, 1.0f};
    return vmulq_f32(v, vld1q_f32(kSigns));
  }
};

}  // namespace tinyenc::detail
