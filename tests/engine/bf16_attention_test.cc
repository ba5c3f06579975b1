// Attention's products with bf16 operands in tinyenc's own kernels (ops/bf16_attention.h): each
// score and context value against a double-precision sum of the same operands rounded to bf16 (to
// nearest, ties to even) here, within a few f32 roundings of the sum of the terms' magnitudes,
// over lengths and head sizes that reach every tile, tail and odd count; the key bias; nothing
// written outside the scores or the context's own columns; worked values that only a rounding to
// nearest even gives; the threaded entry points equal to the heads one by one, and the context
// taken from the scores, and the three steps fused, equal to the steps taken in turn. On a CPU
// without AVX512_BF16 (or with TINYENC_ISA below avx512) the kernels do not run: the tests say so.
#include "engine/ops/bf16_attention.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "engine/bf16.h"
#include "engine/ops/softmax_rows.h"
#include "tests/engine/attention_case.h"

namespace tinyenc {
namespace {

using testing::AttentionCase;
using testing::bits_of;
using testing::kSentinel;
constexpr avx512_bf16::Rows kProbabilities = avx512_bf16::Rows::kProbabilities;

double rounded(double value) { return f32_from_bf16(bf16_from_f32(static_cast<float>(value))); }

// f32 sums of n terms, each step adding a pair of exact products: within (n + 2) roundings of the
// terms' magnitudes.
double sum_bound(int64_t terms, double magnitude) {
  return static_cast<double>(terms + 2) * 0x1p-24 * magnitude;
}

#define SKIP_WITHOUT_KERNELS() \
  if (!bf16_attention_available()) GTEST_SKIP() << "no AVX512_BF16 kernels under this CPU and ISA"

void expect_heads_near_double_sums(const AttentionCase& c, bool bias) {
  avx512_bf16::Scratch& scratch = *avx512_bf16::thread_scratch();
  std::vector<float> scores(static_cast<size_t>(c.t * c.t + 16));
  std::vector<float> context(static_cast<size_t>(c.b * c.t * c.context_row()), kSentinel);
  for (int64_t bi = 0; bi < c.b; ++bi) {
    for (int64_t hi = 0; hi < c.h; ++hi) {
      std::fill(scores.begin(), scores.end(), kSentinel);
      avx512_bf16::head_scores(c.head_scores(bi, hi, bias, scores.data()), scratch);
      avx512_bf16::head_context(c.head_context(bi, hi, context.data()), kProbabilities, scratch);
      for (int64_t i = 0; i < c.t; ++i) {
        for (int64_t j = 0; j < c.t; ++j) {
          double sum = 0.0, magnitude = 0.0;
          for (int64_t k = 0; k < c.dh; ++k) {
            const double term = rounded(c.at(0, bi, hi, i, k)) * rounded(c.at(1, bi, hi, j, k));
            sum += term;
            magnitude += std::fabs(term);
          }
          const double key_bias = bias ? c.key_bias[bi * c.t + j] : 0.0;
          const double expected = 0.125 * sum + key_bias;
          ASSERT_NEAR(scores[i * c.t + j], expected,
                      0.125 * sum_bound(c.dh, magnitude) + 0x1p-23 * std::fabs(expected))
              << "score " << i << " " << j << ", t " << c.t << ", dh " << c.dh;
        }
        const float* p = c.probabilities.data() + ((bi * c.h + hi) * c.t + i) * c.t;
        for (int64_t k = 0; k < c.dh; ++k) {
          double sum = 0.0, magnitude = 0.0;
          for (int64_t j = 0; j < c.t; ++j) {
            const double term = rounded(p[j]) * rounded(c.at(2, bi, hi, j, k));
            sum += term;
            magnitude += std::fabs(term);
          }
          ASSERT_NEAR(context[(bi * c.t + i) * c.context_row() + hi * c.dh + k], sum,
                      sum_bound(c.t, magnitude))
              << "context " << i << " " << k << ", t " << c.t << ", dh " << c.dh;
        }
      }
      for (size_t i = static_cast<size_t>(c.t * c.t); i < scores.size(); ++i) {
        ASSERT_EQ(scores[i], kSentinel) << "past the scores, t " << c.t << ", dh " << c.dh;
      }
    }
  }
  for (int64_t row = 0; row < c.b * c.t; ++row) {
    for (int64_t k = c.d(); k < c.context_row(); ++k) {
      ASSERT_EQ(context[row * c.context_row() + k], kSentinel) << row << " " << k;
    }
  }
}

TEST(Bf16Attention, HeadsAgainstDoubleSumsOfBf16Operands) {
  SKIP_WITHOUT_KERNELS();
  uint32_t seed = 300;
  for (const int64_t dh : {1, 2, 7, 16, 17, 32, 33, 40, 64, 80}) {
    for (const int64_t t : {1, 2, 3, 5, 15, 16, 17, 31, 32, 33, 47, 64, 100}) {
      for (const bool bias : {false, true}) {
        expect_heads_near_double_sums(AttentionCase(2, 2, t, dh, ++seed), bias);
      }
    }
  }
}

// Operands halfway between two bf16 values round to the even one: 1 + 2^-8 to 1, 1 + 3 2^-8 to
// 1 + 2^-6. Computed in f32, or rounded by truncation, the results below would differ.
TEST(Bf16Attention, OperandsRoundToNearestEven) {
  SKIP_WITHOUT_KERNELS();
  avx512_bf16::Scratch& scratch = *avx512_bf16::thread_scratch();
  const float low_tie = 1.0f + 0x1p-8f, high_tie = 1.0f + 3 * 0x1p-8f;
  // One query and one key of three values: q = (1 + 2^-8, 1 + 2^-8, 1 + 3 2^-8), k = (1, 1, 1);
  // in f32 the score would be 0.5 (3 + 5 2^-8), truncated 0.5 (3 + 2^-7).
  const float q[3] = {low_tie, low_tie, high_tie}, k[3] = {1.0f, 1.0f, 1.0f};
  float score = 0.0f;
  avx512_bf16::head_scores({q, 3, k, 3, 1, 3, 0.5f, nullptr, &score}, scratch);
  EXPECT_EQ(score, 0.5f * (3.0f + 0x1p-6f));
  // Two queries and two keys: p = (1 + 3 2^-8, 1 + 2^-8; 0, 0), v = (1 + 2^-8; 4), so row 0 is
  // (1 + 2^-6) 1 + 1 * 4 = 5.015625 (in f32 about 5.0313, truncated 5.0078125) and row 1 zero;
  // the context rows two floats apart.
  const float p[4] = {high_tie, low_tie, 0.0f, 0.0f};
  const float v[2] = {low_tie, 4.0f};
  float out[4] = {-1.0f, kSentinel, -1.0f, kSentinel};
  avx512_bf16::head_context({p, v, 1, 2, 1, out, 2}, kProbabilities, scratch);
  EXPECT_EQ(out[0], 5.015625f);
  EXPECT_EQ(out[2], 0.0f);
  EXPECT_EQ(out[1], kSentinel);
  EXPECT_EQ(out[3], kSentinel);
}

// The entry points (heads shared among the threads) give each head's result bit for bit.
TEST(Bf16Attention, EntryPointsMatchHeadsOneByOne) {
  SKIP_WITHOUT_KERNELS();
  avx512_bf16::Scratch& scratch = *avx512_bf16::thread_scratch();
  for (const int64_t t : {29, 130}) {
    testing::expect_entry_points_match(
        AttentionCase(3, 4, t, 64, 9), bf16_attention_scores,
        [&](const HeadScores& head) { avx512_bf16::head_scores(head, scratch); },
        bf16_attention_context,
        [&](const HeadContext& head) {
          avx512_bf16::head_context(head, avx512_bf16::Rows::kProbabilities, scratch);
        });
  }
}

// From the scores, the softmax taken row by row on the way: the context of softmax_rows' output,
// bit for bit, with the scores left as they were (a key masked with -10000 included).
TEST(Bf16Attention, SoftmaxContextMatchesSoftmaxThenContext) {
  SKIP_WITHOUT_KERNELS();
  for (const int64_t t : {1, 7, 33, 130}) {
    const AttentionCase c(2, 3, t, 40, 17);
    std::vector<float> scores = testing::normal_values(c.b * c.h * t * t, 3.0f, 18);
    scores[static_cast<size_t>(t - 1)] = -10000.0f;
    const std::vector<float> given = scores;
    std::vector<float> probabilities(scores.size());
    softmax_rows(scores.data(), c.b * c.h * t, t, probabilities.data());
    std::vector<float> expected(static_cast<size_t>(c.b * t * c.context_row()), kSentinel);
    std::vector<float> actual = expected;
    bf16_attention_context(probabilities.data(), c.part(2), c.context(expected));
    bf16_attention_softmax_context(scores.data(), c.part(2), c.context(actual));
    for (size_t i = 0; i < expected.size(); ++i) {
      ASSERT_EQ(bits_of(expected[i]), bits_of(actual[i])) << "t " << t << ", at " << i;
    }
    for (size_t i = 0; i < scores.size(); ++i) ASSERT_EQ(bits_of(scores[i]), bits_of(given[i]));
  }
}

// Scores, softmax and context fused, a block of query rows at a time: the three steps' context
// bit for bit, with and without the key mask, at lengths of one block and of several (the last
// one shorter).
TEST(Bf16Attention, FusedMatchesTheStepsInTurn) {
  SKIP_WITHOUT_KERNELS();
  for (const int64_t t : {5, 130, 601}) {
    const AttentionCase c(2, 2, t, 24, 23);
    for (const bool bias : {false, true}) {
      const float* key_bias = bias ? c.key_bias.data() : nullptr;
      std::vector<float> scores(static_cast<size_t>(c.b * c.h * t * t));
      bf16_attention_scores(c.part(0), c.part(1), 0.125f, key_bias, scores.data());
      softmax_rows(scores.data(), c.b * c.h * t, t, scores.data());
      std::vector<float> expected(static_cast<size_t>(c.b * t * c.context_row()), kSentinel);
      std::vector<float> actual = expected;
      bf16_attention_context(scores.data(), c.part(2), c.context(expected));
      bf16_attention(c.part(0), c.part(1), c.part(2), 0.125f, key_bias, c.context(actual));
      for (size_t i = 0; i < expected.size(); ++i) {
        ASSERT_EQ(bits_of(expected[i]), bits_of(actual[i])) << "t " << t << ", at " << i;
      }
    }
  }
}

}  // namespace
}  // namespace tinyenc
