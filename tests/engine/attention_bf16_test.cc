// Attention's products with bf16 operands (ops::AttentionCore, as bf16 and int8 models run them):
// the scores and the context against double-precision sums over the operands as given in f32,
// within what rounding q, k, v and the probabilities to bf16 may move them (2^-8 of each
// operand, so about 2^-7 of each product's magnitude), from bf16 copies laid out as the f32 rows
// or as dense q, k and v planes (what the attention layer hands over); and the f32 path, exact to
// 1e-5, from the same views.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "engine/bf16.h"
#include "engine/dtype.h"
#include "engine/ops/attention.h"
#include "engine/ops/runtime.h"
#include "tests/engine/linear_reference.h"

namespace tinyenc {
namespace {

using testing::normal_values;

struct Shape {
  int64_t batch, heads, seq, head_dim;
};

enum class Operands { kF32, kBf16Strided, kBf16Planes };

void check(const Shape& s, Operands operands) {
  const bool bf16 = operands != Operands::kF32;
  const int64_t b = s.batch, h = s.heads, t = s.seq, dh = s.head_dim, d = h * dh;
  // Fused QKV rows [b, t, 3, h, dh], as SelfAttention lays them out.
  const std::vector<float> qkv = normal_values(b * t * 3 * d, 1.0f, 21);
  // In bf16: as the f32 rows, or as three dense planes [3, b * t, d].
  const bool planes = operands == Operands::kBf16Planes;
  std::vector<uint16_t> qkv16(qkv.size());
  for (int64_t row = 0; row < b * t; ++row) {
    for (int64_t part = 0; part < 3; ++part) {
      for (int64_t i = 0; i < d; ++i) {
        const int64_t to = planes ? (part * b * t + row) * d + i : (row * 3 + part) * d + i;
        qkv16[static_cast<size_t>(to)] =
            bf16_from_f32(qkv[static_cast<size_t>((row * 3 + part) * d + i)]);
      }
    }
  }
  const auto view = [&](int64_t part) {
    return View4{qkv.data() + part * d, {b, h, t, dh}, {t * 3 * d, dh, 3 * d, 1}};
  };
  const auto view16 = [&](int64_t part) {
    if (!bf16) return View4Bf16{};
    if (planes) return View4Bf16{qkv16.data() + part * b * t * d, {t * d, dh, d, 1}};
    return View4Bf16{qkv16.data() + part * d, {t * 3 * d, dh, 3 * d, 1}};
  };
  const auto at = [&](int64_t part, int64_t bi, int64_t hi, int64_t ti, int64_t i) {
    return double(qkv[static_cast<size_t>(bi * t * 3 * d + ti * 3 * d + part * d + hi * dh + i)]);
  };
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
  Runtime runtime;
  ops::AttentionCore core(runtime);
  std::vector<float> scores(static_cast<size_t>(b * h * t * t));
  core.scores(view(0), view(1), scale, nullptr, {b, 1, 1, t}, scores.data(), view16(0), view16(1));
  EXPECT_EQ(core.scores_in_bf16(), bf16);
  const double bound = bf16 ? 0x1p-7 + 0x1p-16 : 1e-5;
  std::vector<float> probabilities(scores.size());
  for (int64_t bi = 0; bi < b; ++bi) {
    for (int64_t hi = 0; hi < h; ++hi) {
      for (int64_t qi = 0; qi < t; ++qi) {
        float* row = scores.data() + ((bi * h + hi) * t + qi) * t;
        for (int64_t ki = 0; ki < t; ++ki) {
          double sum = 0.0, magnitude = 0.0;
          for (int64_t i = 0; i < dh; ++i) {
            sum += at(0, bi, hi, qi, i) * at(1, bi, hi, ki, i);
            magnitude += std::fabs(at(0, bi, hi, qi, i) * at(1, bi, hi, ki, i));
          }
          ASSERT_NEAR(row[ki], scale * sum, scale * bound * magnitude + 1e-6) << qi << " " << ki;
        }
        // A probability row of our own (softmax is not what is tested here).
        double total = 0.0;
        for (int64_t ki = 0; ki < t; ++ki) total += std::exp(double(row[ki]));
        for (int64_t ki = 0; ki < t; ++ki) {
          probabilities[static_cast<size_t>(row - scores.data() + ki)] =
              static_cast<float>(std::exp(double(row[ki])) / total);
        }
      }
    }
  }
  std::vector<float> context(static_cast<size_t>(b * t * d));
  core.context(probabilities.data(), view(2),
               View4{context.data(), {b, h, t, dh}, {t * d, dh, d, 1}}, view16(2));
  EXPECT_EQ(core.context_in_bf16(), bf16);
  for (int64_t bi = 0; bi < b; ++bi) {
    for (int64_t hi = 0; hi < h; ++hi) {
      for (int64_t qi = 0; qi < t; ++qi) {
        const float* p = probabilities.data() + ((bi * h + hi) * t + qi) * t;
        for (int64_t i = 0; i < dh; ++i) {
          double sum = 0.0, magnitude = 0.0;
          for (int64_t ki = 0; ki < t; ++ki) {
            sum += double(p[ki]) * at(2, bi, hi, ki, i);
            magnitude += std::fabs(double(p[ki]) * at(2, bi, hi, ki, i));
          }
          const float actual = context[static_cast<size_t>(bi * t * d + qi * d + hi * dh + i)];
          ASSERT_NEAR(actual, sum, bound * magnitude + 1e-6) << qi << " " << i;
        }
      }
    }
  }
}

TEST(AttentionProducts, InF32FromStridedViews) { check({2, 3, 40, 32}, Operands::kF32); }

TEST(AttentionProducts, InBf16WithinItsRounding) {
  if (const std::string reason = dtype_unsupported_reason(ComputeDtype::kBF16); !reason.empty()) {
    GTEST_SKIP() << reason;
  }
  for (const Operands operands : {Operands::kBf16Strided, Operands::kBf16Planes}) {
    check({2, 3, 40, 32}, operands);
    check({1, 12, 128, 64}, operands);
  }
}

}  // namespace
}  // namespace tinyenc
