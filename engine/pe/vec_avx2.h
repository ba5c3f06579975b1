// Eight floats in a YMM register (AVX2 + FMA).
#pragma once

#include <immintrin.h>

namespace tinyenc::detail {

struct VecAvx2 {
  using Reg = __m256;
  static constexpr int kWidth = 8;
  static Reg load(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, Reg v) { _mm256_storeu_ps(p, v); }
  // Non-temporal store to a kStreamAlignment-aligned p: bypasses the caches and skips the read
  // for ownership; stream_fence orders such stores before later ones (other threads' reads).
  static constexpr int kStreamAlignment = 32;
  static void stream(float* p, Reg v) { _mm256_stream_ps(p, v); }
  static void stream_fence() { _mm_sfence(); }
  static Reg set1(float x) { return _mm256_set1_ps(x); }
  static Reg zero() { return _mm256_setzero_ps(); }
  static Reg add(Reg a, Reg b) { return _mm256_add_ps(a, b); }
  static Reg sub(Reg a, Reg b) { return _mm256_sub_ps(a, b); }
  static Reg mul(Reg a, Reg b) { return _mm256_mul_ps(a, b); }
  static Reg fmadd(Reg a, Reg b, Reg c) { return _mm256_fmadd_ps(a, b, c); }
  static Reg fnmadd(Reg a, Reg b, Reg c) { return _mm256_fnmadd_ps(a, b, c); }
  static float reduce_add(Reg v) {
    __m128 sum = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    sum = _mm_add_ps(sum, _mm_movehl_ps(sum, sum));
    sum = _mm_add_ss(sum, _mm_movehdup_ps(sum));
    return _mm_cvtss_f32(sum);
  }
  static Reg swap_pairs(Reg v) { return _mm256_permute_ps(v, 0xB1); }
  static Reg duplicate_pairs(const float* p) {
    const __m256 low = _mm256_castps128_ps256(_mm_loadu_ps(p));
    return _mm256_permutevar8x32_ps(low, _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3));
  }
  static Reg negate_even(Reg v) {
    return _mm256_xor_ps(v, _mm256_setr_ps(-0.0f, 0.0f, -0.0f, 0.0f, -0.0f, 0.0f, -0.0f, 0.0f));
  }
};

}  // namespace tinyenc::detail
