// tinyenc's softmax against the formula in double precision and worked values, and the AVX2 rows
// against the scalar specification bit for bit.
#include "engine/ops/softmax_rows.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "engine/isa.h"
#include "tests/engine/linear_reference.h"

namespace tinyenc {
namespace {

using testing::normal_values;
constexpr float kInfinity = std::numeric_limits<float>::infinity();

uint32_t bits_of(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
}

TEST(SoftmaxRows, WorkedValues) {
  // e^1, e^2, e^3 over their sum; a second row with a masked key (-10000, as BERT's mask adds)
  // and one at -infinity: exactly 0, the others as if they were absent.
  const std::vector<float> scores = {1.0f, 2.0f, 3.0f, -10000.0f, 1.0f, -kInfinity, 2.0f, 3.0f};
  std::vector<float> p(scores.size());
  softmax_rows(scores.data(), 2, 4, p.data());
  const double expected[] = {0.0900305731703805, 0.2447284710547976, 0.6652409557748219};
  for (int j = 0; j < 3; ++j) EXPECT_NEAR(p[static_cast<size_t>(j)], expected[j], 2e-7) << j;
  EXPECT_EQ(p[3], 0.0f);
  EXPECT_EQ(p[5], 0.0f);
  EXPECT_NEAR(p[4], expected[0], 2e-7);
  EXPECT_NEAR(p[6], expected[1], 2e-7);
  EXPECT_NEAR(p[7], expected[2], 2e-7);
}

TEST(SoftmaxRows, WithinRoundingOfTheFormula) {
  for (const int64_t cols : {1, 5, 8, 19, 128, 515}) {
    const int64_t rows = 7;
    std::vector<float> scores = normal_values(rows * cols, 4.0f, static_cast<uint32_t>(cols));
    std::vector<float> p(scores.size());
    softmax_rows(scores.data(), rows, cols, p.data());
    for (int64_t r = 0; r < rows; ++r) {
      const float* row = scores.data() + r * cols;
      const double largest = *std::max_element(row, row + cols);
      double total = 0.0;
      for (int64_t j = 0; j < cols; ++j) total += std::exp(double(row[j]));
      for (int64_t j = 0; j < cols; ++j) {
        const double exact = std::exp(double(row[j])) / total;
        // exp's 2.3e-7, x - max rounded to float (half an ulp of |x - max|, which e^(x - max)
        // turns into that much relative error), the sum's roundings (cols / 8 + 8 additions in
        // a row at most) and the reciprocal's and the product's.
        const double ulp = 0x1p-24;
        const double bound =
            (2.3e-7 + ulp * (largest - row[j]) + ulp * double(cols / 8 + 8 + 2)) * exact;
        ASSERT_NEAR(p[r * cols + j], exact, bound) << cols << ": " << r << ", " << j;
      }
    }
    // In place, the same.
    std::vector<float> in_place = scores;
    softmax_rows(in_place.data(), rows, cols, in_place.data());
    ASSERT_EQ(in_place, p);
  }
}

TEST(SoftmaxRows, NaNAndAllMaskedRowsGiveNaN) {
  const std::vector<float> scores = {1.0f, std::nanf(""), 2.0f, -kInfinity, -kInfinity, -kInfinity};
  std::vector<float> p(scores.size());
  softmax_rows(scores.data(), 2, 3, p.data());
  for (float v : p) EXPECT_TRUE(std::isnan(v));
}

// Each vector version against the scalar specification, bit for bit: every width's whole
// vectors, group of eight and tail (of every length, 1 to 15), and nothing written past the row.
void expect_scalar_bits(void (*simd)(const float*, int64_t, float*)) {
  constexpr float kSentinel = 12345.0f;
  for (const int64_t cols : {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12,  13,  14,
                             15, 16, 17, 19, 22, 24, 26, 31, 32, 39, 40, 128, 129, 136}) {
    std::vector<float> scores = normal_values(cols, 5.0f, static_cast<uint32_t>(cols) + 40);
    if (cols > 4) {
      scores[2] = -10000.0f;  // masked: 0
      scores[3] = -kInfinity;
      scores[4] = scores[0] - 86.99f;  // at the edge of the exponential's range
    }
    std::vector<float> expected(scores.size()), actual(scores.size() + 16, kSentinel);
    scalar::softmax_row(scores.data(), cols, expected.data());
    simd(scores.data(), cols, actual.data());
    for (int64_t j = 0; j < cols; ++j) {
      ASSERT_EQ(bits_of(expected[j]), bits_of(actual[j])) << cols << ": " << j;
    }
    for (int64_t j = cols; j < cols + 16; ++j) ASSERT_EQ(actual[j], kSentinel) << cols << ": " << j;
    // In place, the same.
    simd(scores.data(), cols, scores.data());
    for (int64_t j = 0; j < cols; ++j) ASSERT_EQ(bits_of(expected[j]), bits_of(scores[j])) << j;
  }
  // A NaN score, and a row of -infinity: NaN throughout.
  for (const int64_t cols : {3, 20}) {
    std::vector<float> scores(static_cast<size_t>(cols), -kInfinity), actual(scores.size());
    simd(scores.data(), cols, actual.data());
    for (float p : actual) ASSERT_TRUE(std::isnan(p)) << cols;
    scores.assign(scores.size(), 1.0f);
    scores[1] = std::nanf("");
    simd(scores.data(), cols, actual.data());
    for (float p : actual) ASSERT_TRUE(std::isnan(p)) << cols;
  }
}

TEST(SoftmaxRows, Avx2MatchesScalarExactly) {
  if (!isa_supported(Isa::kAvx2)) GTEST_SKIP() << "AVX2 not supported on this CPU";
  expect_scalar_bits(avx2::softmax_row);
}

TEST(SoftmaxRows, Avx512MatchesScalarExactly) {
  if (!isa_supported(Isa::kAvx512)) GTEST_SKIP() << "AVX-512 not supported on this CPU";
  expect_scalar_bits(avx512::softmax_row);
}

}  // namespace
}  // namespace tinyenc
