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

// The exponentials of a row: those of its whole groups of sixteen stored in work, the rest (up to
// fifteen, zeros past the row) left in *rest, to be normalized and stored once. Returns their sum.
float exponentials(const float* scores, int64_t cols, float* work, __m512* rest) {
  // The largest score: which of equal maxima is taken, and where a NaN is met, does not change
  // the result (a NaN score makes the row NaN whatever the largest).
  __m512 high = _mm512_set1_ps(scores[0]);
  int64_t j = 0;
  for (; j + 16 <= cols; j += 16) high = _mm512_max_ps(high, _mm512_loadu_ps(scores + j));
  const __mmask16 inside = first_lanes(cols - j);
  __m512 last = _mm512_setzero_ps();
  if (j < cols) {  // (no load at all past a row of whole vectors)
    last = _mm512_maskz_loadu_ps(inside, scores + j);
    high = _mm512_mask_max_ps(high, inside, high, last);
  }
  const __m512 largest = _mm512_set1_ps(_mm512_reduce_max_ps(high));
  // Lane k of the specification's eight adds e_j for j = k mod 8 in order: from sixteen
  // exponentials, the first eight, then the next eight.
  __m256 lanes = _mm256_setzero_ps();
  for (j = 0; j + 16 <= cols; j += 16) {
    const __m512 e = exponential16(_mm512_loadu_ps(scores + j), largest);
    _mm512_storeu_ps(work + j, e);
    lanes = _mm256_add_ps(lanes, _mm512_castps512_ps256(e));
    lanes = _mm256_add_ps(lanes, high_half(e));
  }
  float sum = 0.0f;
  if (j < cols) {
    const __m512 e = _mm512_maskz_mov_ps(inside, exponential16(last, largest));
    *rest = e;
    __m256 left = _mm512_castps512_ps256(e);
    if (cols - j >= 8) {  // one more group of eight for the lanes
      lanes = _mm256_add_ps(lanes, left);
      left = high_half(e);
    }
    sum = avx2::sum_in_order(left, (cols - j) % 8);  // fewer than eight left: one by one
  }
  alignas(32) float partial[8];
  _mm256_store_ps(partial, lanes);
  for (float lane : partial) sum += lane;
  return sum;
}

}  // namespace

void softmax_row(const float* scores, int64_t cols, float* probabilities) {
  __m512 rest = _mm512_setzero_ps();
  const __m512 inverse = _mm512_set1_ps(1.0f / exponentials(scores, cols, probabilities, &rest));
  int64_t j = 0;
  for (; j + 16 <= cols; j += 16) {
    _mm512_storeu_ps(probabilities + j, _mm512_mul_ps(_mm512_loadu_ps(probabilities + j), inverse));
  }
  store_first(probabilities + j, _mm512_mul_ps(rest, inverse), cols - j);
}

}  // namespace tinyenc::avx512
