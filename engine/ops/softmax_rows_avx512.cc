// AVX-512 version of softmax_rows.h's rows, step by step the scalar specification (the exponentials
// sixteen at a time, their sum still in the specification's eight lanes); compiled with
// -mavx512f, called only where the active ISA is avx512.
#include <immintrin.h>

#include "engine/ops/exp_avx512.h"
#include "engine/ops/lanes_avx512.h"
#include "engine/ops/softmax_rows.h"

namespace tinyenc::avx512 {
namespace {

inline __m512 exponential16(__m512 scores, __m512 largest) {
  const __m512 y = _mm512_sub_ps(scores, largest);
  const __m512 lowest = _mm512_set1_ps(exp_constants::kExpLowest);
  // exp of max(y, lowest) keeps a NaN y NaN (max returns its second operand then); below lowest, 0.
  const __m512 e = exp_nonpositive(_mm512_max_ps(lowest, y));
  return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(y, lowest, _CMP_NLT_UQ), e);
}

float exponentials(const float* scores, int64_t cols, float* work) {
  // The largest score: which of equal maxima is taken, and where a NaN is met, does not change
  // the result (a NaN score makes the row NaN whatever the largest).
  __m512 high = _mm512_set1_ps(scores[0]);
  int64_t j = 0;
  for (; j + 16 <= cols; j += 16) high = _mm512_max_ps(high, _mm512_loadu_ps(scores + j));
  if (j < cols) {
    const __mmask16 inside = first_lanes(cols - j);
    high = _mm512_mask_max_ps(high, inside, high, _mm512_maskz_loadu_ps(inside, scores + j));
  }
  const float largest = _mm512_reduce_max_ps(high);
  const __m512 broadcast = _mm512_set1_ps(largest);
  // Lane k of the specification's eight adds e_j for j = k mod 8 in order: from sixteen
  // exponentials, the first eight, then the next eight.
  __m256 lanes = _mm256_setzero_ps();
  const int64_t whole = cols / 8 * 8;
  for (j = 0; j + 16 <= whole; j += 16) {
    const __m512 e = exponential16(_mm512_loadu_ps(scores + j), broadcast);
    _mm512_storeu_ps(work + j, e);
    lanes = _mm256_add_ps(lanes, _mm512_castps512_ps256(e));
    lanes = _mm256_add_ps(lanes, high_half(e));
  }
  if (j < whole) {
    // One group of eight left for the lanes.
    const __m512 e = exponential16(_mm512_maskz_loadu_ps(0xff, scores + j), broadcast);
    _mm512_mask_storeu_ps(work + j, 0xff, e);
    lanes = _mm256_add_ps(lanes, _mm512_castps512_ps256(e));
    j += 8;
  }
  float sum = 0.0f;
  if (j < cols) {
    // Fewer than eight left: through the same vector steps, added one by one.
    const __mmask16 inside = first_lanes(cols - j);
    const __m512 e = exponential16(_mm512_maskz_loadu_ps(inside, scores + j), broadcast);
    _mm512_mask_storeu_ps(work + j, inside, e);
    alignas(64) float tail[16];
    _mm512_store_ps(tail, e);
    for (int64_t k = 0; k < cols - j; ++k) sum += tail[k];
  }
  alignas(32) float partial[8];
  _mm256_store_ps(partial, lanes);
  for (float lane : partial) sum += lane;
  return sum;
}

}  // namespace

void softmax_row(const float* scores, int64_t cols, float* probabilities) {
  const float scalar_inverse = 1.0f / exponentials(scores, cols, probabilities);
  const __m512 inverse = _mm512_set1_ps(scalar_inverse);
  int64_t j = 0;
  for (; j + 16 <= cols; j += 16) {
    _mm512_storeu_ps(probabilities + j, _mm512_mul_ps(_mm512_loadu_ps(probabilities + j), inverse));
  }
  if (j < cols) {
    const __mmask16 inside = first_lanes(cols - j);
    _mm512_mask_storeu_ps(probabilities + j, inside,
                          _mm512_mul_ps(_mm512_maskz_loadu_ps(inside, probabilities + j), inverse));
  }
}

}  // namespace tinyenc::avx512
