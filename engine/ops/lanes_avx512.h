// Lane helpers of the AVX-512 row kernels (ops/*_avx512.cc), for translation units compiled with
// -mavx512f.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace tinyenc::avx512 {

// The first n lanes of sixteen (0 <= n <= 16): a tail's mask.
inline __mmask16 first_lanes(int64_t n) { return static_cast<__mmask16>((1u << n) - 1); }

// Lanes 8 to 15 (AVX512F only: no AVX512DQ extract).
inline __m256 high_half(__m512 v) {
  return _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1));
}

}  // namespace tinyenc::avx512
