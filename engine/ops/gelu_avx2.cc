// AVX2 version of gelu.h's erf-GELU, step by step the scalar specification; compiled with -mavx2
// -mfma, called only where the CPU has AVX2.
#include <immintrin.h>

#include "engine/ops/exp_avx2.h"
#include "engine/ops/gelu.h"
#include "engine/ops/gelu_constants.h"

namespace tinyenc::avx2 {
namespace {

inline __m256 gelu8(__m256 x) {
  using namespace gelu_constants;
  const __m256 one = _mm256_set1_ps(1.0f);
  // max(lowest, x) returns x when x is NaN, as the scalar x < lowest ? lowest : x.
  const __m256 c = _mm256_max_ps(_mm256_set1_ps(kLowest), x);
  const __m256 magnitude = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), c);
  const __m256 t = _mm256_div_ps(one, _mm256_fmadd_ps(_mm256_set1_ps(kP), magnitude, one));
  __m256 polynomial = _mm256_fmadd_ps(_mm256_set1_ps(kA5), t, _mm256_set1_ps(kA4));
  polynomial = _mm256_fmadd_ps(polynomial, t, _mm256_set1_ps(kA3));
  polynomial = _mm256_fmadd_ps(polynomial, t, _mm256_set1_ps(kA2));
  polynomial = _mm256_fmadd_ps(polynomial, t, _mm256_set1_ps(kA1));
  const __m256 square = _mm256_mul_ps(_mm256_mul_ps(c, c), _mm256_set1_ps(kHalfNegative));
  const __m256 y = _mm256_max_ps(_mm256_set1_ps(exp_constants::kExpLowest), square);
  const __m256 q = _mm256_mul_ps(_mm256_mul_ps(t, polynomial), exp_nonpositive(y));
  const __m256 non_negative = _mm256_cmp_ps(c, _mm256_setzero_ps(), _CMP_GE_OQ);
  const __m256 factor = _mm256_blendv_ps(q, _mm256_sub_ps(_mm256_set1_ps(2.0f), q), non_negative);
  return _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), c), factor);
}

}  // namespace

void gelu_erf(float* values, int64_t count) {
  int64_t i = 0;
  for (; i + 16 <= count; i += 16) {
    const __m256 a = gelu8(_mm256_loadu_ps(values + i));
    const __m256 b = gelu8(_mm256_loadu_ps(values + i + 8));
    _mm256_storeu_ps(values + i, a);
    _mm256_storeu_ps(values + i + 8, b);
  }
  for (; i + 8 <= count; i += 8) _mm256_storeu_ps(values + i, gelu8(_mm256_loadu_ps(values + i)));
  scalar::gelu_erf(values + i, count - i);
}

}  // namespace tinyenc::avx2
