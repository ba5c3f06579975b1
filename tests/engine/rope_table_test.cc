// RoPE frequency and cos/sin tables against theta^(-2i/d) and cos/sin worked in double.
#include "engine/pe/rope.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/support/float_tolerance.h"

namespace tinyenc {
namespace {

// inv_freq[i] = theta^(-2i/d) in float32: the exponent 2i/d is rounded to float (relative error
// 2^-24, times ln(theta) <= 14 in the result), then powf and the reciprocal add an ulp or two:
// below (14 + 2) * 2^-24 = 9.5e-7 relative, and 2e-6 leaves a factor of two for other libms.
constexpr double kFrequencyTolerance = 2e-6;  // relative

TEST(RopeInverseFrequenciesTest, MatchFormula) {
  for (const double theta : {10000.0, 160000.0, 500000.0, 1000000.0}) {
    for (const int64_t rotary_dim : {2, 4, 8, 32, 64, 96, 128, 256}) {
      SCOPED_TRACE("theta=" + std::to_string(theta) + " rotary_dim=" + std::to_string(rotary_dim));
      const std::vector<float> inverse = rope_inverse_frequencies(rotary_dim, theta);
      ASSERT_EQ(inverse.size(), static_cast<size_t>(rotary_dim / 2));
      EXPECT_EQ(inverse[0], 1.0f);  // theta^0
      for (int64_t i = 0; i < rotary_dim / 2; ++i) {
        const double expected =
            std::pow(theta, -2.0 * static_cast<double>(i) / static_cast<double>(rotary_dim));
        EXPECT_NEAR(inverse[static_cast<size_t>(i)], expected, kFrequencyTolerance * expected)
            << "i = " << i;
      }
    }
  }
}

TEST(RopeInverseFrequenciesTest, HandWorked) {
  // d = 4, theta = 10000: (10000^0, 10000^-0.5) = (1, 0.01).
  // EXPECT_FLOAT_EQ: within 4 ulps, more than the powf and reciprocal roundings.
  const std::vector<float> four = rope_inverse_frequencies(4, 10000.0);
  ASSERT_EQ(four.size(), 2u);
  EXPECT_EQ(four[0], 1.0f);
  EXPECT_FLOAT_EQ(four[1], 0.01f);
  // d = 8, theta = 10000: 1, 0.1, 0.01, 0.001.
  const std::vector<float> eight = rope_inverse_frequencies(8, 10000.0);
  ASSERT_EQ(eight.size(), 4u);
  EXPECT_EQ(eight[0], 1.0f);
  EXPECT_FLOAT_EQ(eight[1], 0.1f);
  EXPECT_FLOAT_EQ(eight[2], 0.01f);
  EXPECT_FLOAT_EQ(eight[3], 0.001f);
  // d = 2: a single frequency 1 whatever theta is.
  EXPECT_EQ(rope_inverse_frequencies(2, 500000.0), std::vector<float>{1.0f});
}

// A partial rotary dimension (GPT-NeoX rotary_pct, Hugging Face partial_rotary_factor) uses
// the rotary dimension, not the head size, in the exponent: head 64 with 16 rotated dims has
// inv_freq[i] = theta^(-2i/16), i < 8.
TEST(RopeInverseFrequenciesTest, PartialRotaryDimension) {
  const std::vector<float> partial = rope_inverse_frequencies(16, 10000.0);
  const std::vector<float> full = rope_inverse_frequencies(64, 10000.0);
  ASSERT_EQ(partial.size(), 8u);
  for (int64_t i = 0; i < 8; ++i) {
    const double expected = std::pow(10000.0, -2.0 * static_cast<double>(i) / 16.0);
    EXPECT_NEAR(partial[static_cast<size_t>(i)], expected, kFrequencyTolerance * expected);
    // The same frequency sits at index 4i of the full head's list, computed from the same float
    // exponent (2i / 16 and 8i / 64 are both i / 8, exact in float): identical bits.
    EXPECT_EQ(partial[static_cast<size_t>(i)], full[static_cast<size_t>(4 * i)]);
  }
  // 10000^(-1/8) = 10^-0.5, within kFrequencyTolerance (6.3e-7 here).
  EXPECT_NEAR(partial[1], 0.31622776601683794, 1e-6);
}

TEST(RopeInverseFrequenciesTest, RejectsBadArguments) {
  EXPECT_THROW(rope_inverse_frequencies(0, 10000.0), std::invalid_argument);
  EXPECT_THROW(rope_inverse_frequencies(-4, 10000.0), std::invalid_argument);
  EXPECT_THROW(rope_inverse_frequencies(7, 10000.0), std::invalid_argument);
  EXPECT_THROW(rope_inverse_frequencies(8, 1.0), std::invalid_argument);
  EXPECT_THROW(rope_inverse_frequencies(8, 0.5), std::invalid_argument);
  EXPECT_THROW(rope_inverse_frequencies(8, std::numeric_limits<double>::quiet_NaN()),
               std::invalid_argument);
  EXPECT_THROW(rope_inverse_frequencies(8, std::numeric_limits<double>::infinity()),
               std::invalid_argument);
  EXPECT_THROW(RopeTable(5, 10000.0), std::invalid_argument);
}

// Rows [0, positions): cos/sin of angle = float(pos) * inv_freq[i], rounded to float first.
TEST(RopeTableTest, ValuesMatchDouble) {
  for (const int64_t rotary_dim : {2, 8, 32, 64, 128}) {
    SCOPED_TRACE("rotary_dim=" + std::to_string(rotary_dim));
    RopeTable table(rotary_dim, 10000.0);
    table.reserve(4096);
    ASSERT_GE(table.positions(), 4096);
    EXPECT_EQ(table.rotary_dim(), rotary_dim);
    const std::vector<float> inverse = rope_inverse_frequencies(rotary_dim, 10000.0);
    const int64_t half = rotary_dim / 2;
    int failures = 0;
    for (int64_t position = 0; position < 4096 && failures < 5; ++position) {
      for (int64_t i = 0; i < half; ++i) {
        const size_t index = static_cast<size_t>(position * half + i);
        const double inv = inverse[static_cast<size_t>(i)];
        // (a) The float32 angle, as Hugging Face computes it, then cos/sin in double: only
        //     the library's float cos/sin rounding separates them, within an ulp below 1.
        const float float_angle = static_cast<float>(position) * inverse[static_cast<size_t>(i)];
        const double tight = testing::float_ulp(1.0);
        // (b) The exact angle pos * theta^(-2i/d): the float angle is off by up to
        //     pos * inv * (2^-24 + the frequency's relative error, < kFrequencyTolerance), and
        //     cos/sin move by at most that.
        const double exact_angle =
            static_cast<double>(position) *
            std::pow(10000.0, -2.0 * static_cast<double>(i) / static_cast<double>(rotary_dim));
        const double loose = 1e-6 + static_cast<double>(position) * inv * 3e-6;
        const double c = table.cos()[index], s = table.sin()[index];
        if (std::fabs(c - std::cos(static_cast<double>(float_angle))) > tight ||
            std::fabs(s - std::sin(static_cast<double>(float_angle))) > tight ||
            std::fabs(c - std::cos(exact_angle)) > loose ||
            std::fabs(s - std::sin(exact_angle)) > loose) {
          ADD_FAILURE() << "position " << position << " i " << i << ": cos " << c << " sin " << s
                        << "; float angle " << float_angle << " exact angle " << exact_angle;
          ++failures;
        }
      }
    }
  }
}

// Hand-worked rows for rotary_dim 4, theta 10000 (inv_freq 1, 0.01).
TEST(RopeTableTest, HandWorkedRows) {
  RopeTable table(4, 10000.0);
  table.reserve(3);
  // Position 0: cos 1, sin 0 exactly.
  EXPECT_EQ(table.cos()[0], 1.0f);
  EXPECT_EQ(table.cos()[1], 1.0f);
  EXPECT_EQ(table.sin()[0], 0.0f);
  EXPECT_EQ(table.sin()[1], 0.0f);
  // Position 2: angles 2 (exact in float) and 0.02 (0.01's float rounding, a few 2^-24, moves
  // it by ~1e-9): cosf/sinf round within an ulp (3e-8 at 0.42), inside 1e-7.
  EXPECT_NEAR(table.cos()[4], -0.4161468365471424, 1e-7);
  EXPECT_NEAR(table.sin()[4], 0.9092974268256817, 1e-7);
  EXPECT_NEAR(table.cos()[5], 0.9998000066665778, 1e-7);
  EXPECT_NEAR(table.sin()[5], 0.01999866669333308, 1e-7);
}

// Growing keeps the rows already there bit for bit, and shrinking requests change nothing.
TEST(RopeTableTest, GrowthKeepsEarlierRows) {
  const int64_t rotary_dim = 24, half = rotary_dim / 2;
  RopeTable table(rotary_dim, 10000.0);
  EXPECT_EQ(table.positions(), 0);
  table.reserve(10);
  ASSERT_GE(table.positions(), 10);
  const int64_t first = table.positions();
  const std::vector<float> cos_before(table.cos(), table.cos() + first * half);
  const std::vector<float> sin_before(table.sin(), table.sin() + first * half);

  const float* cos_pointer = table.cos();
  table.reserve(first);  // already there: no change
  EXPECT_EQ(table.positions(), first);
  EXPECT_EQ(table.cos(), cos_pointer);
  table.reserve(1);
  EXPECT_EQ(table.positions(), first);

  // Rows are computed by the same code whatever the table size: identical bits.
  table.reserve(3000);
  ASSERT_GE(table.positions(), 3000);
  EXPECT_TRUE(std::equal(cos_before.begin(), cos_before.end(), table.cos()));
  EXPECT_TRUE(std::equal(sin_before.begin(), sin_before.end(), table.sin()));

  // A table built in one go has the same rows as one grown in steps.
  RopeTable direct(rotary_dim, 10000.0);
  direct.reserve(3000);
  const int64_t shared = std::min(direct.positions(), table.positions()) * half;
  EXPECT_TRUE(std::equal(direct.cos(), direct.cos() + shared, table.cos()));
  EXPECT_TRUE(std::equal(direct.sin(), direct.sin() + shared, table.sin()));
}

}  // namespace
}  // namespace tinyenc
