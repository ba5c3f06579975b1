// Sixteen floats in a ZMM register (AVX-512F).
#pragma once

#include <immintrin.h>

namespace tinyenc::detail {

struct VecAvx512 {
  using Reg = __m512;
  static constexpr int kWidth = 16;
  static Reg load(const float* p) { return _mm512_loadu_ps(p); }
  static void store(float* p, Reg v) { _mm512_storeu_ps(p, v); }
  static constexpr int kStreamAlignment = 64;  // non-temporal store, as in vec_avx2.h
  static void stream(float* p, Reg v) { _mm512_stream_ps(p, v); }
  static void stream_fence() { _mm_sfence(); }
  static Reg set1(float x) { return _mm512_set1_ps(x); }
  static Reg zero() { return _mm512_setzero_ps(); }
  static Reg add(Reg a, Reg b) { return _mm512_add_ps(a, b); }
  static Reg sub(Reg a, Reg b) { return _mm512_sub_ps(a, b); }
  static Reg mul(Reg a, Reg b) { return _mm512_mul_ps(a, b); }
  static Reg fmadd(Reg a, Reg b, Reg c) { return _mm512_fmadd_ps(a, b, c); }
  static Reg fnmadd(Reg a, Reg b, Reg c) { return _mm512_fnmadd_ps(a, b, c); }
  static float reduce_add(Reg v) { return _mm512_reduce_add_ps(v); }
  static Reg swap_pairs(Reg v) { return _mm512_permute_ps(v, 0xB1); }
  static Reg duplicate_pairs(const float* p) {
    const __m512 low = _mm512_castps256_ps512(_mm256_loadu_ps(p));
    const __m512i index = _mm512_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7);
    return _mm512_permutexvar_ps(index, low);
  }
  static Reg negate_even(Reg v) {
    // Lanes 0, 2, 4, .. get their sign bit flipped (mask 0x5555).
    return _mm512_mask_sub_ps(v, 0x5555, _mm512_setzero_ps(), v);
  }
};

}  // namespace tinyenc::detail
