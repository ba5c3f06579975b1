// AVX-512 version of gelu.h's erf-GELU: the scalar specification's bits (every float checked),
// from the AVX2 version's operations less four, where AVX-512 has one instruction for two
// (exp_avx512.h's last step, the masked 2 - q) or an exact product can be shared (-c/2);
// compiled with -mavx512f, called only where the active ISA is avx512. On CPUs with full-width
// AVX-512 units (Intel's) it does twice the AVX2 version's work per instruction.
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
  const __m512 t = _mm512_div_ps(one, _mm512_fmadd_ps(_mm512_set1_ps(kP), _mm512_abs_ps(c), one));
  __m512 polynomial = _mm512_fmadd_ps(_mm512_set1_ps(kA5), t, _mm512_set1_ps(kA4));
  polynomial = _mm512_fmadd_ps(polynomial, t, _mm512_set1_ps(kA3));
  polynomial = _mm512_fmadd_ps(polynomial, t, _mm512_set1_ps(kA2));
  polynomial = _mm512_fmadd_ps(polynomial, t, _mm512_set1_ps(kA1));
  // -c/2, exact; the specification's (c c) (-1/2) and (c/2) factor from it with the same
  // roundings: c (-c/2) is c c halved, and -((-c/2) factor) - 0 is (c/2) factor, zeros' signs
  // included. (Where c c (-1/2) and c (-c/2) differ, the exponent is the same: below 2^-63 in
  // magnitude both give exp = 1; past 1.3e19, c c is infinite and c (-c/2) not, both below
  // kExpLowest.)
  const __m512 half_negative = _mm512_mul_ps(c, _mm512_set1_ps(kHalfNegative));
  const __m512 square = _mm512_mul_ps(c, half_negative);
  const __m512 y = _mm512_max_ps(_mm512_set1_ps(exp_constants::kExpLowest), square);
  const __m512 q = _mm512_mul_ps(_mm512_mul_ps(t, polynomial), exp_nonpositive(y));
  const __mmask16 non_negative = _mm512_cmp_ps_mask(c, _mm512_setzero_ps(), _CMP_GE_OQ);
  const __m512 factor = _mm512_mask_sub_ps(q, non_negative, _mm512_set1_ps(2.0f), q);
  return _mm512_fnmsub_ps(half_negative, factor, _mm512_setzero_ps());
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
    const __m512 rest = gelu16(_mm512_maskz_loadu_ps(first_lanes(count - i), values + i));
    store_first(values + i, rest, count - i);
  }
}

}  // namespace tinyenc::avx512
