// AVX2 version of exp.h's exp_nonpositive, for translation units compiled with -mavx2 -mfma.
#pragma once

#include <immintrin.h>

#include "engine/ops/exp.h"

namespace tinyenc::avx2 {

// y in [kExpLowest, 0] in every lane.
inline __m256 exp_nonpositive(__m256 y) {
  using namespace exp_constants;
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(y, _mm256_set1_ps(kLog2E)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m256 r = _mm256_fmadd_ps(n, _mm256_set1_ps(-kLn2Low),
                                   _mm256_fmadd_ps(n, _mm256_set1_ps(-kLn2High), y));
  __m256 e = _mm256_fmadd_ps(_mm256_set1_ps(kE6), r, _mm256_set1_ps(kE5));
  e = _mm256_fmadd_ps(e, r, _mm256_set1_ps(kE4));
  e = _mm256_fmadd_ps(e, r, _mm256_set1_ps(kE3));
  e = _mm256_fmadd_ps(e, r, _mm256_set1_ps(kE2));
  e = _mm256_fmadd_ps(e, r, one);
  e = _mm256_fmadd_ps(e, r, one);
  const __m256 two_n = _mm256_castsi256_ps(
      _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23));
  return _mm256_mul_ps(e, two_n);
}

}  // namespace tinyenc::avx2
