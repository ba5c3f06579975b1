// Attention's short-sequence products (ops/short_attention.h): the scalar specification against
// double-precision sums worked here, each vector version against the scalar one bit for bit
// (every tile, tail and the heads' strided layout of a fused QKV buffer), the key bias, nothing
// written outside the scores or the context's own columns, and the threaded entry points equal
// to the heads one by one.
#include "engine/ops/short_attention.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "engine/isa.h"
#include "tests/engine/attention_case.h"

namespace tinyenc {
namespace {

using testing::AttentionCase;
using testing::bits_of;
using testing::kSentinel;
using Case = AttentionCase;

TEST(ShortAttention, ScalarScoresAndContextAgainstDoubleSums) {
  for (const bool bias : {false, true}) {
    const Case c(2, 3, 7, 24, 11);
    std::vector<float> scores(static_cast<size_t>(c.t * c.t));
    std::vector<float> context(static_cast<size_t>(c.b * c.t * c.context_row()), kSentinel);
    for (int64_t bi = 0; bi < c.b; ++bi) {
      for (int64_t hi = 0; hi < c.h; ++hi) {
        scalar::head_scores(c.head_scores(bi, hi, bias, scores.data()), nullptr);
        scalar::head_context(c.head_context(bi, hi, context.data()));
        for (int64_t i = 0; i < c.t; ++i) {
          for (int64_t j = 0; j < c.t; ++j) {
            double sum = 0.0, magnitude = 0.0;
            for (int64_t k = 0; k < c.dh; ++k) {
              sum += c.at(0, bi, hi, i, k) * c.at(1, bi, hi, j, k);
              magnitude += std::fabs(c.at(0, bi, hi, i, k) * c.at(1, bi, hi, j, k));
            }
            const double expected = 0.125 * sum + (bias ? c.key_bias[bi * c.t + j] : 0.0);
            ASSERT_NEAR(scores[i * c.t + j], expected, 1e-6 * (magnitude + 2.0)) << i << " " << j;
          }
          const float* p = c.probabilities.data() + ((bi * c.h + hi) * c.t + i) * c.t;
          for (int64_t k = 0; k < c.dh; ++k) {
            double sum = 0.0, magnitude = 0.0;
            for (int64_t j = 0; j < c.t; ++j) {
              sum += p[j] * c.at(2, bi, hi, j, k);
              magnitude += std::fabs(p[j] * c.at(2, bi, hi, j, k));
            }
            ASSERT_NEAR(context[(bi * c.t + i) * c.context_row() + hi * c.dh + k], sum,
                        1e-6 * magnitude + 1e-7);
          }
        }
      }
    }
    // A worked score: one query, one key of two values, the scale and the bias by hand.
    const Case one(1, 1, 1, 2, 5);
    float score = 0.0f;
    scalar::head_scores(one.head_scores(0, 0, bias, &score), nullptr);
    const float dot = std::fma(float(one.at(0, 0, 0, 0, 1)), float(one.at(1, 0, 0, 0, 1)),
                               float(one.at(0, 0, 0, 0, 0)) * float(one.at(1, 0, 0, 0, 0)));
    EXPECT_EQ(score, 0.125f * dot + (bias ? one.key_bias[0] : 0.0f));
  }
}

// The vector kernels against the scalar ones, bit for bit, over lengths and head sizes that
// reach every tile shape and tail of both vector widths; the scores' buffer and the context's
// columns past each head stay untouched.
void expect_scalar_bits(void (*scores_kernel)(const HeadScores&, float*),
                        void (*context_kernel)(const HeadContext&)) {
  uint32_t seed = 100;
  for (const int64_t dh : {1, 7, 8, 12, 16, 17, 32, 40, 48, 56, 64, 80}) {
    for (const int64_t t : {1, 2, 5, 8, 9, 15, 16, 17, 19, 24, 31, 32, 33, 47, 64}) {
      const Case c(2, 2, t, dh, ++seed);
      std::vector<float> packed;
      for (const bool bias : {false, true}) {
        std::vector<float> expected(static_cast<size_t>(t * t + 16), kSentinel);
        std::vector<float> actual = expected;
        for (int64_t bi = 0; bi < c.b; ++bi) {
          for (int64_t hi = 0; hi < c.h; ++hi) {
            packed.assign(static_cast<size_t>(dh * short_attention_packed_width(t)), 0.0f);
            scalar::head_scores(c.head_scores(bi, hi, bias, expected.data()), nullptr);
            scores_kernel(c.head_scores(bi, hi, bias, actual.data()), packed.data());
            for (size_t i = 0; i < expected.size(); ++i) {
              ASSERT_EQ(bits_of(expected[i]), bits_of(actual[i]))
                  << "scores, t " << t << ", dh " << dh << ", at " << i;
            }
          }
        }
      }
      std::vector<float> expected(static_cast<size_t>(c.b * t * c.context_row()), kSentinel);
      std::vector<float> actual = expected;
      for (int64_t bi = 0; bi < c.b; ++bi) {
        for (int64_t hi = 0; hi < c.h; ++hi) {
          scalar::head_context(c.head_context(bi, hi, expected.data()));
          context_kernel(c.head_context(bi, hi, actual.data()));
        }
      }
      for (size_t i = 0; i < expected.size(); ++i) {
        ASSERT_EQ(bits_of(expected[i]), bits_of(actual[i]))
            << "context, t " << t << ", dh " << dh << ", at " << i;
      }
      for (int64_t row = 0; row < c.b * t; ++row) {
        for (int64_t k = c.d(); k < c.context_row(); ++k) {
          ASSERT_EQ(actual[row * c.context_row() + k], kSentinel) << row << " " << k;
        }
      }
    }
  }
}

TEST(ShortAttention, Avx2MatchesScalarExactly) {
  if (!isa_supported(Isa::kAvx2)) GTEST_SKIP() << "AVX2 not supported on this CPU";
  expect_scalar_bits(avx2::head_scores, avx2::head_context);
}

TEST(ShortAttention, Avx512MatchesScalarExactly) {
  if (!isa_supported(Isa::kAvx512)) GTEST_SKIP() << "AVX-512 not supported on this CPU";
  expect_scalar_bits(avx512::head_scores, avx512::head_context);
}

// The entry points (the active ISA's kernels, heads shared among the threads) give each head's
// scalar result, bit for bit, with and without the key mask: at 6 keys (under avx512, the AVX2
// tiles score) and at 29.
void expect_entry_points_match(const Case& c) {
  testing::expect_entry_points_match(
      c, short_attention_scores, [](const HeadScores& head) { scalar::head_scores(head, nullptr); },
      short_attention_context, [](const HeadContext& head) { scalar::head_context(head); });
}

TEST(ShortAttention, EntryPointsMatchHeadsOneByOne) {
  if (!short_attention_available()) GTEST_SKIP() << "no short-attention kernel for this ISA";
  for (const int64_t t : {6, 29}) expect_entry_points_match(Case(5, 4, t, 64, 7));
  expect_entry_points_match(Case(3, 2, 23, 40, 8));
}

}  // namespace
}  // namespace tinyenc
