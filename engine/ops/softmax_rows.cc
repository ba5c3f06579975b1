#include "engine/ops/softmax_rows.h"

#include "engine/isa.h"
#include "engine/ops/exp.h"
#include "engine/parallel_rows.h"

namespace tinyenc {
namespace scalar {
namespace {

// e_j into work, their sum returned (the header's order).
float exponentials(const float* scores, int64_t cols, float* work) {
  float largest = scores[0];
  for (int64_t j = 1; j < cols; ++j) largest = largest < scores[j] ? scores[j] : largest;
  float lanes[8] = {};
  float sum = 0.0f;
  for (int64_t j = 0; j < cols; ++j) {
    const float y = scores[j] - largest;
    // y is NaN for a NaN score or an all -infinity row: it stays NaN.
    const float e = y < exp_constants::kExpLowest ? 0.0f : y != y ? y : exp_nonpositive(y);
    work[j] = e;
    if (j < cols / 8 * 8) {
      lanes[j % 8] += e;
    } else {
      sum += e;
    }
  }
  for (float lane : lanes) sum += lane;
  return sum;
}

}  // namespace

void softmax_row(const float* scores, int64_t cols, float* probabilities) {
  const float inverse = 1.0f / exponentials(scores, cols, probabilities);
  for (int64_t j = 0; j < cols; ++j) probabilities[j] *= inverse;
}

}  // namespace scalar

namespace {

// Below this many scores a softmax is not worth waking a second thread for.
constexpr int64_t kMinParallelScores = 1 << 14;

}  // namespace

void softmax_rows(const float* scores, int64_t rows, int64_t cols, float* probabilities) {
#if defined(__x86_64__)
  const auto row = active_isa() == Isa::kAvx512 ? avx512::softmax_row
                   : active_isa_runs_avx2()     ? avx2::softmax_row
                                                : scalar::softmax_row;
#else
  const auto row = scalar::softmax_row;
#endif
  parallel_rows(rows, rows * cols, kMinParallelScores, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) row(scores + r * cols, cols, probabilities + r * cols);
  });
}

}  // namespace tinyenc
