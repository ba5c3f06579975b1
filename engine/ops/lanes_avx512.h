// Lane helpers of the AVX-512 row kernels (ops/*_avx512.cc), for translation units compiled with
// -mavx512f; with internal linkage, as lanes_avx2.h's.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "engine/ops/lanes_avx2.h"

namespace tinyenc::avx512 {
namespace {

// The first n lanes of sixteen (0 <= n <= 16): a tail's mask.
inline __mmask16 first_lanes(int64_t n) { return static_cast<__mmask16>((1u << n) - 1); }

// Lanes 8 to 15 (AVX512F only: no AVX512DQ extract).
inline __m256 high_half(__m512 v) {
  return _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1));
}

// Lanes 0 to n - 1 of v (n <= 16; none for n <= 0), 32 bits each, by plain stores, as
// avx2::store_first.
inline void store_first(void* out, __m512i v, int64_t n) {
  auto* bytes = static_cast<char*>(out);
  if (n == 16) {
    _mm512_storeu_si512(bytes, v);
  } else if (n >= 8) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(bytes), _mm512_castsi512_si256(v));
    avx2::store_first(bytes + 32, _mm512_extracti64x4_epi64(v, 1), n - 8);
  } else {
    avx2::store_first(bytes, _mm512_castsi512_si256(v), n);
  }
}

inline void store_first(float* out, __m512 v, int64_t n) {
  store_first(static_cast<void*>(out), _mm512_castps_si512(v), n);
}

}  // namespace
}  // namespace tinyenc::avx512
