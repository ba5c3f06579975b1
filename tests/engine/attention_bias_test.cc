// ALiBi slopes and T5 relative buckets against values worked out by hand from the papers'
// constructions, and the [heads, queries + keys - 1] distance-bias rows built from them.
#include "engine/pe/attention_bias.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace tinyenc {
namespace {

void expect_slopes(int64_t heads, const std::vector<double>& expected) {
  SCOPED_TRACE("heads = " + std::to_string(heads));
  const std::vector<float> slopes = alibi_slopes(heads);
  ASSERT_EQ(slopes.size(), expected.size());
  for (size_t h = 0; h < expected.size(); ++h) {
    // The slopes are computed in double and rounded once: the float nearest the exact value.
    EXPECT_EQ(slopes[h], static_cast<float>(expected[h])) << "head " << h;
  }
}

// Press et al.: for n heads, n a power of two, m_h = 2^(-8h/n), h = 1..n.
TEST(AlibiSlopesTest, PowersOfTwo) {
  expect_slopes(1, {0.00390625});                          // 2^-8
  expect_slopes(2, {0.0625, 0.00390625});                  // 2^-4, 2^-8
  expect_slopes(4, {0.25, 0.0625, 0.015625, 0.00390625});  // 2^-2 .. 2^-8 step 2
  expect_slopes(8, {0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625});
  // 16 heads: 2^-0.5, 2^-1, 2^-1.5, .., 2^-8.
  expect_slopes(
      16, {0.70710678118654752, 0.5, 0.35355339059327376, 0.25, 0.17677669529663688, 0.125,
           0.08838834764831844, 0.0625, 0.04419417382415922, 0.03125, 0.02209708691207961, 0.015625,
           0.011048543456039805, 0.0078125, 0.0055242717280199025, 0.00390625});
}

TEST(AlibiSlopesTest, EightHeadsAreExactPowersOfTwo) {
  const std::vector<float> slopes = alibi_slopes(8);
  ASSERT_EQ(slopes.size(), 8u);
  for (int h = 0; h < 8; ++h) EXPECT_EQ(slopes[static_cast<size_t>(h)], std::ldexp(1.0f, -(h + 1)));
}

// Otherwise: the slopes of the largest power of two c below n, then slopes 0, 2, 4, .. of the
// 2c-head sequence, n - c of them (the reference code's get_slopes).
TEST(AlibiSlopesTest, NonPowersOfTwo) {
  // 6 heads: 4-head slopes 2^-2, 2^-4, 2^-6, 2^-8; then 8-head slopes 2^-1, 2^-3.
  expect_slopes(6, {0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125});
  // 12 heads: 8-head slopes 2^-1 .. 2^-8; then 16-head slopes 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5.
  expect_slopes(
      12, {0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625, 0.70710678118654752,
           0.35355339059327376, 0.17677669529663688, 0.08838834764831844});
  // 24 heads: 16-head slopes 2^-0.5 .. 2^-8; then 32-head slopes 2^-0.25, 2^-0.75, .., 2^-3.75.
  expect_slopes(24, {0.70710678118654752,   0.5,
                     0.35355339059327376,   0.25,
                     0.17677669529663688,   0.125,
                     0.08838834764831844,   0.0625,
                     0.04419417382415922,   0.03125,
                     0.02209708691207961,   0.015625,
                     0.011048543456039805,  0.0078125,
                     0.0055242717280199025, 0.00390625,
                     0.8408964152537145,    0.5946035575013605,
                     0.42044820762685725,   0.29730177875068026,
                     0.21022410381342863,   0.14865088937534013,
                     0.10511205190671431,   0.07432544468767006});
}

TEST(AlibiSlopesTest, RejectsNoHeads) {
  EXPECT_THROW(alibi_slopes(0), std::invalid_argument);
  EXPECT_THROW(alibi_slopes(-3), std::invalid_argument);
}

// Row h, entry r holds -m_h * |r - (queries - 1)|: r = j - i + queries - 1.
TEST(AlibiDistanceBiasTest, LayoutAndValues) {
  // queries = 2, keys = 3: r = 0..3 stands for j - i = -1, 0, 1, 2. Powers of two times small
  // integers: exact in float.
  const std::vector<float> bias = alibi_distance_bias({0.5f, 0.25f}, 2, 3);
  const std::vector<float> expected = {-0.5f, 0.0f, -0.5f, -1.0f, -0.25f, 0.0f, -0.25f, -0.5f};
  EXPECT_EQ(bias, expected);

  // Bidirectional: symmetric around r = queries - 1 when queries == keys.
  const std::vector<float> slopes = alibi_slopes(12);
  const int64_t queries = 9, keys = 9, span = queries + keys - 1;
  const std::vector<float> square = alibi_distance_bias(slopes, queries, keys);
  ASSERT_EQ(square.size(), slopes.size() * static_cast<size_t>(span));
  for (size_t h = 0; h < slopes.size(); ++h) {
    for (int64_t r = 0; r < span; ++r) {
      const float distance = static_cast<float>(std::abs(r - (queries - 1)));
      // One float product, as alibi_distance_bias computes it: the same bits.
      EXPECT_EQ(square[h * static_cast<size_t>(span) + static_cast<size_t>(r)],
                -slopes[h] * distance);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// T5 buckets, bidirectional, num_buckets = 32, max_distance = 128, worked from the formula:
//   half = 16 buckets per sign; distances d = key - query > 0 get + 16; n = |d|.
//   n < max_exact = 8: bucket n.
//   n >= 8: 8 + floor(log(n / 8) / log(128 / 8) * (16 - 8)) = 8 + floor(2 log2(n / 8)),
//           at most 15. 2 log2(n / 8) >= k  <=>  n >= 8 * 2^(k/2):
//             k = 1: n >= 11.31 -> 12    bucket 9   (n = 8..11 -> 8)
//             k = 2: n >= 16             bucket 10
//             k = 3: n >= 22.63 -> 23    bucket 11
//             k = 4: n >= 32             bucket 12
//             k = 5: n >= 45.25 -> 46    bucket 13
//             k = 6: n >= 64             bucket 14
//             k = 7: n >= 90.51 -> 91    bucket 15
//             k = 8: n >= 128            16, clamped to 15 (and so on to infinity).
// These agree with Hugging Face's T5Attention._relative_position_bucket in float32.
TEST(T5RelativeBucketTest, HandWorkedTable) {
  const RelativeParams params{32, 128};
  const int64_t table[][2] = {
      {0, 0},    {-1, 1},    {1, 17},    {-2, 2},     {2, 18},    {-7, 7},     {7, 23},
      {-8, 8},   {8, 24},    {-11, 8},   {11, 24},    {-12, 9},   {12, 25},    {-15, 9},
      {-16, 10}, {16, 26},   {-22, 10},  {-23, 11},   {23, 27},   {-31, 11},   {-32, 12},
      {32, 28},  {-45, 12},  {-46, 13},  {46, 29},    {-63, 13},  {-64, 14},   {64, 30},
      {-90, 14}, {90, 30},   {-91, 15},  {91, 31},    {-127, 15}, {127, 31},   {-128, 15},
      {128, 31}, {-129, 15}, {-500, 15}, {-1000, 15}, {1000, 31}, {100000, 31}};
  for (const auto& row : table) {
    EXPECT_EQ(t5_relative_bucket(row[0], params), row[1]) << "relative position " << row[0];
  }
}

// num_buckets = 8, max_distance = 20: half 4, max_exact 2; n >= 2: 2 + floor(2 log10(n / 2)),
// which reaches 3 at n >= 2 sqrt(10) = 6.32, i.e. n = 7. So n: 0 1 | 2..6 -> 2 | 7.. -> 3.
TEST(T5RelativeBucketTest, SmallBucketCount) {
  const RelativeParams params{8, 20};
  const int64_t expected_negative[] = {0, 1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3};  // d = 0, -1, ..
  for (int64_t n = 0; n < 13; ++n) {
    EXPECT_EQ(t5_relative_bucket(-n, params), expected_negative[n]) << "d = " << -n;
    if (n > 0) {
      EXPECT_EQ(t5_relative_bucket(n, params), 4 + expected_negative[n]) << "d = " << n;
    }
  }
  EXPECT_EQ(t5_relative_bucket(-1000, params), 3);
  EXPECT_EQ(t5_relative_bucket(1000, params), 7);
}

// Every distance in a wide range against the formula evaluated in double.
TEST(T5RelativeBucketTest, MatchesFormulaEverywhere) {
  for (const RelativeParams params : {RelativeParams{32, 128}, RelativeParams{64, 256},
                                      RelativeParams{16, 64}, RelativeParams{8, 20}}) {
    const int64_t half = params.num_buckets / 2;
    const int64_t max_exact = half / 2;
    for (int64_t d = -3000; d <= 3000; ++d) {
      const int64_t n = std::abs(d);
      int64_t bucket = n;
      if (n >= max_exact) {
        const double ratio =
            std::log(static_cast<double>(n) / static_cast<double>(max_exact)) /
            std::log(static_cast<double>(params.max_distance) / static_cast<double>(max_exact));
        bucket = std::min<int64_t>(
            max_exact + static_cast<int64_t>(ratio * static_cast<double>(half - max_exact)),
            half - 1);
      }
      if (d > 0) bucket += half;
      ASSERT_EQ(t5_relative_bucket(d, params), bucket)
          << "d = " << d << ", num_buckets = " << params.num_buckets
          << ", max_distance = " << params.max_distance;
    }
  }
}

// Row h, entry r = table[bucket(r - (queries - 1)), h] from a [num_buckets, heads] table:
// copies of table entries, so exact.
TEST(RelativeDistanceBiasTest, LayoutAndValues) {
  const RelativeParams params{32, 128};
  const int64_t heads = 3;
  std::vector<float> table(static_cast<size_t>(params.num_buckets * heads));
  for (int64_t bucket = 0; bucket < params.num_buckets; ++bucket) {
    for (int64_t h = 0; h < heads; ++h) {
      table[static_cast<size_t>(bucket * heads + h)] = static_cast<float>(100 * h + bucket);
    }
  }
  const int64_t queries = 20, keys = 150, span = queries + keys - 1;
  const std::vector<float> bias =
      relative_distance_bias(table.data(), heads, params, queries, keys);
  ASSERT_EQ(bias.size(), static_cast<size_t>(heads * span));
  auto at = [&](int64_t h, int64_t distance) {
    return bias[static_cast<size_t>(h * span + distance + queries - 1)];
  };
  // Buckets from the hand-worked table above, then + 100 h.
  EXPECT_EQ(at(0, -19), 10.0f);  // 16 <= n = 19 < 23
  EXPECT_EQ(at(0, 0), 0.0f);
  EXPECT_EQ(at(1, -1), 101.0f);
  EXPECT_EQ(at(2, 1), 217.0f);
  EXPECT_EQ(at(1, 12), 125.0f);
  EXPECT_EQ(at(2, 64), 230.0f);
  EXPECT_EQ(at(0, 130), 31.0f);
  EXPECT_EQ(at(2, 149), 231.0f);
  for (int64_t h = 0; h < heads; ++h) {
    for (int64_t r = 0; r < span; ++r) {
      const int64_t bucket = t5_relative_bucket(r - (queries - 1), params);
      EXPECT_EQ(bias[static_cast<size_t>(h * span + r)],
                table[static_cast<size_t>(bucket * heads + h)]);
    }
  }
}

TEST(RelativeDistanceBiasTest, RejectsBadParameters) {
  const std::vector<float> table(64, 0.0f);
  EXPECT_THROW(relative_distance_bias(table.data(), 1, RelativeParams{2, 128}, 3, 3),
               std::invalid_argument);
  // max_distance must exceed max_exact = num_buckets / 4.
  EXPECT_THROW(relative_distance_bias(table.data(), 1, RelativeParams{32, 8}, 3, 3),
               std::invalid_argument);
  EXPECT_NO_THROW(relative_distance_bias(table.data(), 1, RelativeParams{32, 9}, 3, 3));
}

}  // namespace
}  // namespace tinyenc
