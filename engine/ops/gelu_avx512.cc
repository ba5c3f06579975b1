// AVX-512 version of gelu.h's erf-GELU, lane for lane the AVX2 version's operations (so the
// scalar specification's bits); compiled with -mavx512f, called only where the active ISA is
// avx512. On CPUs with full-width AVX-512 units (Intel's) it does twice the AVX2 version's work
// per instruction.
#include <immintrin.h>

#include "engine/ops/exp_avx512.h"
#include "engine/ops/gelu.h"
#include "engine/ops/gelu_constants.h"
#include "engine/ops/lanes_avx512.h"

namespace tinyenc::avx512 {
namespace {

inline __m512 gelu16(__m512 x) {
  using namespace gelu_constants;
  const __m512 one = _mm512_set1_ps(1.0f);
  // max(lowest, x) returns x when x is NaN, as the scalar x < lowest ? lowest : x.
  const __m512 c = _mm512_max_ps(_mm512_set1_ps(kLowest), x);
  const __m512 magnitude =
      _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(c), _mm512_set1_epi32(0x7fffffff)));
  const __m512 t = _mm512_div_ps(one, _mm512_fmadd_ps(_mm512_set1_ps(kP), magnitude, one));
  __m512 polynomial = _mm512_fmadd_ps(_mm512_set1_ps(kA5), t, _mm512_set1_ps(kA4));
  polynomial = _mm512_fmadd_ps(polynomial, t, _mm512_set1_ps(kA3));
  polynomial = _mm512_fmadd_ps(polynomial, t, _mm512_set1_ps(kA2));
  polynomial = _mm512_fmadd_ps(polynomial, t, _mm512_set1_ps(kA1));
  const __m512 square = _mm512_mul_ps(_mm512_mul_ps(c, c), _mm512_set1_ps(kHalfNegative));
  const __m512 y = _mm512_max_ps(_mm512_set1_ps(exp_constants::kExpLowest), square);
  const __m512 q = _mm512_mul_ps(_mm512_mul_ps(t, polynomial), exp_nonpositive(y));
  const __mmask16 non_negative = _mm512_cmp_ps_mask(c, _mm512_setzero_ps(), _CMP_GE_OQ);
  const __m512 factor =
      _mm512_mask_blend_ps(non_negative, q, _mm512_sub_ps(_mm512_set1_ps(2.0f), q));
  return _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(0.5f), c), factor);
}

}  // namespace

void gelu_erf(float* values, int64_t count) {
  int64_t i = 0;
  for (; i + 32 <= count; i += 32) {
    const __m512 a = gelu16(_mm512_loadu_ps(values + i));
    const __m512 b = gelu16(_mm512_loadu_ps(values + i + 16));
    _mm512_storeu_ps(values + i, a);
    _mm512_storeu_ps(values + i + 16, b);
  }
  for (; i + 16 <= count; i += 16)
    _mm512_storeu_ps(values + i, gelu16(_mm512_loadu_ps(values + i)));
  if (i < count) {
    const __mmask16 tail = first_lanes(count - i);
    _mm512_mask_storeu_ps(values + i, tail, gelu16(_mm512_maskz_loadu_ps(tail, values + i)));
  }
}

}  // namespace tinyenc::avx512
