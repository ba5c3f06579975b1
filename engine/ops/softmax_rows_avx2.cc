// AVX2 version of softmax_rows.h's rows, step by step the scalar specification; compiled with
// -mavx2 -mfma, called only where the CPU has AVX2.
#include <immintrin.h>

#include "engine/ops/exp_avx2.h"
#include "engine/ops/lanes_avx2.h"
#include "engine/ops/softmax_rows.h"

namespace tinyenc::avx2 {
namespace {

inline __m256 exponential8(__m256 scores, __m256 largest) {
  const __m256 y = _mm256_sub_ps(scores, largest);
  const __m256 lowest = _mm256_set1_ps(exp_constants::kExpLowest);
  // exp of max(y, lowest) keeps a NaN y NaN (max returns its second operand then); below lowest, 0.
  const __m256 e = exp_nonpositive(_mm256_max_ps(lowest, y));
  return _mm256_andnot_ps(_mm256_cmp_ps(y, lowest, _CMP_LT_OQ), e);
}

// The exponentials of a row: those of its whole groups of eight stored in work, the rest (up to
// seven, zeros past the row) left in *rest, to be normalized and stored once. Returns their sum.
float exponentials(const float* scores, int64_t cols, float* work, __m256* rest) {
  float largest = scores[0];
  int64_t j = 0;
  if (cols >= 8) {
    __m256 high = _mm256_loadu_ps(scores);
    for (j = 8; j + 8 <= cols; j += 8) high = _mm256_max_ps(high, _mm256_loadu_ps(scores + j));
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, high);
    for (float lane : lanes) largest = largest < lane ? lane : largest;
  }
  for (; j < cols; ++j) largest = largest < scores[j] ? scores[j] : largest;
  const __m256 broadcast = _mm256_set1_ps(largest);
  __m256 lanes = _mm256_setzero_ps();
  const int64_t whole = cols / 8 * 8;
  for (j = 0; j < whole; j += 8) {
    const __m256 e = exponential8(_mm256_loadu_ps(scores + j), broadcast);
    _mm256_storeu_ps(work + j, e);
    lanes = _mm256_add_ps(lanes, e);
  }
  float sum = 0.0f;
  if (j < cols) {
    // The last partial group through the same vector steps, the lanes past the row made 0 and
    // the others added one by one, in order.
    const __m256i inside = first_lanes(cols - j);
    const __m256 e = _mm256_and_ps(exponential8(_mm256_maskload_ps(scores + j, inside), broadcast),
                                   _mm256_castsi256_ps(inside));
    *rest = e;
    sum = sum_in_order(e, cols - j);
  }
  alignas(32) float partial[8];
  _mm256_store_ps(partial, lanes);
  for (float lane : partial) sum += lane;
  return sum;
}

}  // namespace

void softmax_row(const float* scores, int64_t cols, float* probabilities) {
  __m256 rest = _mm256_setzero_ps();
  const __m256 inverse = _mm256_set1_ps(1.0f / exponentials(scores, cols, probabilities, &rest));
  int64_t j = 0;
  for (; j + 8 <= cols; j += 8) {
    _mm256_storeu_ps(probabilities + j, _mm256_mul_ps(_mm256_loadu_ps(probabilities + j), inverse));
  }
  store_first(probabilities + j, _mm256_mul_ps(rest, inverse), cols - j);
}

}  // namespace tinyenc::avx2
