// A case of attention's per-head products (engine/ops/short_attention.h's HeadScores and
// HeadContext): b sequences of t rows in fused QKV layout, probabilities, a key mask, and a context
// with three columns past each row's heads that no product may touch.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "engine/ops/short_attention.h"
#include "tests/engine/linear_reference.h"

namespace tinyenc::testing {

inline uint32_t bits_of(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
}

inline constexpr float kSentinel = 12345.0f;

// b sequences of t rows in fused QKV layout [b, t, 3, h, dh], probabilities [b, h, t, t], a key
// mask [b, t] and a context [b, t, h, dh + 3] (three columns past each row's heads that no product
// may touch).
struct AttentionCase {
  int64_t b, h, t, dh;
  std::vector<float> qkv, probabilities, key_bias;

  AttentionCase(int64_t b_, int64_t h_, int64_t t_, int64_t dh_, uint32_t seed)
      : b(b_),
        h(h_),
        t(t_),
        dh(dh_),
        qkv(normal_values(b * t * 3 * h * dh, 1.0f, seed)),
        probabilities(normal_values(b * h * t * t, 0.5f, seed + 1)),
        key_bias(normal_values(b * t, 2.0f, seed + 2)) {}
  int64_t d() const { return h * dh; }
  int64_t context_row() const { return d() + 3; }
  View4 part(int64_t p) const {
    return View4{qkv.data() + p * d(), {b, h, t, dh}, {t * 3 * d(), dh, 3 * d(), 1}};
  }
  View4 context(std::vector<float>& out) const {
    return View4{out.data(), {b, h, t, dh}, {t * context_row(), dh, context_row(), 1}};
  }
  double at(int64_t p, int64_t bi, int64_t hi, int64_t ti, int64_t c) const {
    return qkv[static_cast<size_t>(((bi * t + ti) * 3 + p) * d() + hi * dh + c)];
  }
  HeadScores head_scores(int64_t bi, int64_t hi, bool bias, float* scores) const {
    const int64_t row = 3 * d();
    return {qkv.data() + bi * t * row + hi * dh,
            row,
            qkv.data() + bi * t * row + d() + hi * dh,
            row,
            t,
            dh,
            0.125f,
            bias ? key_bias.data() + bi * t : nullptr,
            scores};
  }
  HeadContext head_context(int64_t bi, int64_t hi, float* out) const {
    return {probabilities.data() + (bi * h + hi) * t * t,
            qkv.data() + bi * t * 3 * d() + 2 * d() + hi * dh,
            3 * d(),
            t,
            dh,
            out + bi * t * context_row() + hi * dh,
            context_row()};
  }
};

// An ISA's entry points (heads shared among the threads) against its per-head kernels, bit for
// bit: all_scores(q, k, scale, key_bias, scores) with and without the key mask against
// head_scores(HeadScores) for each head, then all_contexts(probabilities, v, context) against
// head_context(HeadContext), the context's foreign columns left as they were.
template <class AllScores, class OneHeadScores, class AllContexts, class OneHeadContext>
void expect_entry_points_match(const AttentionCase& c, AllScores all_scores,
                               OneHeadScores head_scores, AllContexts all_contexts,
                               OneHeadContext head_context) {
  for (const bool bias : {false, true}) {
    std::vector<float> scores(static_cast<size_t>(c.b * c.h * c.t * c.t));
    all_scores(c.part(0), c.part(1), 0.125f, bias ? c.key_bias.data() : nullptr, scores.data());
    std::vector<float> expected(static_cast<size_t>(c.t * c.t));
    for (int64_t bi = 0; bi < c.b; ++bi) {
      for (int64_t hi = 0; hi < c.h; ++hi) {
        head_scores(c.head_scores(bi, hi, bias, expected.data()));
        const float* actual = scores.data() + (bi * c.h + hi) * c.t * c.t;
        for (int64_t i = 0; i < c.t * c.t; ++i) {
          ASSERT_EQ(bits_of(expected[i]), bits_of(actual[i])) << bi << " " << hi << " " << i;
        }
      }
    }
  }
  std::vector<float> context(static_cast<size_t>(c.b * c.t * c.context_row()), kSentinel);
  std::vector<float> expected = context;
  all_contexts(c.probabilities.data(), c.part(2), c.context(context));
  for (int64_t bi = 0; bi < c.b; ++bi) {
    for (int64_t hi = 0; hi < c.h; ++hi) head_context(c.head_context(bi, hi, expected.data()));
  }
  for (size_t i = 0; i < expected.size(); ++i) {
    ASSERT_EQ(bits_of(expected[i]), bits_of(context[i])) << i;
  }
}

}  // namespace tinyenc::testing
