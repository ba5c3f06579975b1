// AVX-512 version of exp.h's exp_nonpositive, for translation units compiled with -mavx512f:
// lane for lane the same operations as exp_avx2.h up to e^r, so the same bits; then e^r 2^n in
// one vscalefps, exact as the specification's product with 2^n is (both are normal floats).
#pragma once

#include <immintrin.h>

#include "engine/ops/exp.h"

namespace tinyenc::avx512 {

// y in [kExpLowest, 0] in every lane.
inline __m512 exp_nonpositive(__m512 y) {
  using namespace exp_constants;
  const __m512 one = _mm512_set1_ps(1.0f);
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(y, _mm512_set1_ps(kLog2E)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m512 r = _mm512_fmadd_ps(n, _mm512_set1_ps(-kLn2Low),
                                   _mm512_fmadd_ps(n, _mm512_set1_ps(-kLn2High), y));
  __m512 e = _mm512_fmadd_ps(_mm512_set1_ps(kE6), r, _mm512_set1_ps(kE5));
  e = _mm512_fmadd_ps(e, r, _mm512_set1_ps(kE4));
  e = _mm512_fmadd_ps(e, r, _mm512_set1_ps(kE3));
  e = _mm512_fmadd_ps(e, r, _mm512_set1_ps(kE2));
  e = _mm512_fmadd_ps(e, r, one);
  e = _mm512_fmadd_ps(e, r, one);
  return _mm512_scalef_ps(e, n);
}

}  // namespace tinyenc::avx512
