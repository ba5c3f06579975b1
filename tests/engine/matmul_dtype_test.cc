// The Linear layer in each compute dtype against a double-precision loop over the original f32
// weights, with bounds derived from each dtype's rounding: bf16 rounds each operand to 8
// significant bits, int8 rounds each weight to half its channel's step and each activation to
// half the tensor's step. Also: the conversions themselves, the int8 kernels' saturation, and the
// source forms of a weight matrix (f32, bf16 bits, s8 with scales).
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <oneapi/dnnl/dnnl.hpp>
#include <random>
#include <string>
#include <vector>

#include "engine/dtype.h"
#include "engine/isa.h"
#include "engine/layers/linear.h"
#include "engine/ops/quantize.h"
#include "engine/ops/weight_matrix.h"
#include "tests/engine/linear_reference.h"

namespace tinyenc {
namespace {

using testing::normal_values;

#define SKIP_UNLESS_SUPPORTED(dtype)                                                 \
  if (const std::string reason = dtype_unsupported_reason(dtype); !reason.empty()) { \
    GTEST_SKIP() << reason;                                                          \
  }

// ---- bfloat16 rounding -----------------------------------------------------------------------

uint32_t bits_of(float value) {
  uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

TEST(Bf16Conversion, RoundsToNearestTiesToEven) {
  EXPECT_EQ(bf16_from_f32(1.0f), 0x3f80);
  EXPECT_EQ(bf16_from_f32(1.0f + 0x1p-8f), 0x3f80);             // tie, 0x3f80 is even
  EXPECT_EQ(bf16_from_f32(1.0f + 3 * 0x1p-8f), 0x3f82);         // tie, 0x3f82 is even
  EXPECT_EQ(bf16_from_f32(1.0f + 0x1p-8f + 0x1p-20f), 0x3f81);  // just above the tie
  EXPECT_EQ(bf16_from_f32(-2.0f), 0xc000);
  EXPECT_EQ(bf16_from_f32(std::numeric_limits<float>::infinity()), 0x7f80);
  EXPECT_TRUE(std::isnan(f32_from_bf16(bf16_from_f32(std::nanf("")))));
  EXPECT_EQ(f32_from_bf16(0x3f81), 1.0f + 0x1p-7f);
}

// Against an independent reference: the nearer (in double) of the two bf16 neighbours of x.
TEST(Bf16Conversion, PicksTheNearerNeighbour) {
  std::mt19937 random(3);
  std::uniform_real_distribution<float> exponent(-30.0f, 30.0f);
  for (int i = 0; i < 20000; ++i) {
    const float x = (i % 2 ? -1.0f : 1.0f) * std::exp2(exponent(random));
    const uint32_t bits = bits_of(x);
    const uint16_t below = static_cast<uint16_t>(bits >> 16), above = below + 1;
    const double to_below = std::fabs(double(f32_from_bf16(below)) - x);
    const double to_above = std::fabs(double(f32_from_bf16(above)) - x);
    const uint16_t expected = to_below < to_above   ? below
                              : to_above < to_below ? above
                              : (below % 2 == 0)    ? below
                                                    : above;
    ASSERT_EQ(bf16_from_f32(x), expected) << x;
    // Half a bf16 ulp: 2^-8 of the power of two below |x|.
    ASSERT_LE(std::fabs(double(f32_from_bf16(expected)) - x), 0x1p-8 * std::fabs(x));
  }
}

// ---- int8 quantization ----------------------------------------------------------------------

TEST(WeightQuantization, PerChannelStepsAndEdgeRows) {
  const int64_t in = 37;
  std::vector<float> w = normal_values(5 * in, 1.0f, 4);
  std::fill(w.begin() + in, w.begin() + 2 * in, 0.0f);  // row 1: zeros
  for (int64_t i = 0; i < in; ++i) {
    w[static_cast<size_t>(2 * in + i)] *= 1e30f;   // huge
    w[static_cast<size_t>(3 * in + i)] *= 1e-30f;  // small, still normal
    w[static_cast<size_t>(4 * in + i)] *= 1e-44f;  // subnormal
  }
  std::vector<int8_t> q(w.size());
  std::vector<float> scales(5);
  quantize_weights_s8(w.data(), 5, in, q.data(), scales.data());
  EXPECT_EQ(scales[1], 1.0f);
  for (int64_t o = 0; o < 5; ++o) {
    double largest = 0.0;
    for (int64_t i = 0; i < in; ++i) largest = std::max(largest, std::fabs(double(w[o * in + i])));
    ASSERT_TRUE(std::isfinite(scales[o]) && scales[o] > 0.0f) << o;
    if (o == 1 || o == 4) {
      for (int64_t i = 0; i < in; ++i) EXPECT_EQ(q[o * in + i], 0) << o;
      continue;
    }
    EXPECT_NEAR(scales[o], largest / 127.0, largest / 127.0 * 1e-6) << o;
    for (int64_t i = 0; i < in; ++i) {
      const double error = std::fabs(double(q[o * in + i]) * scales[o] - w[o * in + i]);
      ASSERT_LE(error, 0.5001 * scales[o]) << o << ", " << i;
      ASSERT_GE(q[o * in + i], -127);
    }
  }
}

void expect_activation_round_trip(const std::vector<float>& x, int32_t levels) {
  const ActivationQuantization q =
      choose_activation_quantization(activation_range(x.data(), int64_t(x.size())), levels);
  ASSERT_TRUE(std::isfinite(q.scale) && q.scale > 0.0f);
  ASSERT_TRUE(q.zero_point >= 0 && q.zero_point <= levels);
  std::vector<uint8_t> quantized(x.size());
  quantize_activations(x.data(), int64_t(x.size()), q, levels, quantized.data());
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_LE(quantized[i], levels);
    const double back = (double(quantized[i]) - q.zero_point) * q.scale;
    // Half a step, plus the float rounding of x / scale near the top of the range.
    ASSERT_LE(std::fabs(back - x[i]), 0.5 * q.scale * (1 + 1e-5) + 1e-6 * std::fabs(x[i]))
        << i << ": " << x[i];
    if (x[i] == 0.0f) {
      ASSERT_EQ(quantized[i], q.zero_point);  // zero is exact
    }
  }
}

TEST(ActivationQuantization, RoundTripsWithinHalfAStep) {
  for (int32_t levels : {127, 255}) {
    std::vector<float> x = normal_values(1000, 3.0f, 5);
    x[10] = 0.0f;
    expect_activation_round_trip(x, levels);
    std::vector<float> positive = x;  // after a ReLU: the range starts at 0
    for (float& v : positive) v = std::max(v, 0.0f);
    expect_activation_round_trip(positive, levels);
    expect_activation_round_trip(std::vector<float>(77, 0.0f), levels);  // a row of zeros
    std::vector<float> huge = x, small = x, tiny = x;
    for (float& v : huge) v *= 1e37f;  // range wider than FLT_MAX
    for (float& v : small) v *= 1e-30f;
    for (float& v : tiny) v *= 1e-44f;  // subnormal
    expect_activation_round_trip(huge, levels);
    expect_activation_round_trip(small, levels);
    expect_activation_round_trip(tiny, levels);
  }
}

// One int8 Linear output row to dequantize: random s32 sums and row sums, weight scales, a bias,
// a residual, and the row's values before the call (which it reads where it adds).
struct Dequantization {
  int64_t out;
  std::vector<int32_t> sums, row_sums;
  std::vector<float> weight_scales, bias, residual, before;
  ActivationQuantization q{0.037f, 113};
};

// check(row, bias or null, add, residual or null) for rows of each of `outs` outputs, in every
// form of the call.
template <class Check>
void for_each_dequantization(std::initializer_list<int64_t> outs, Check check) {
  std::mt19937 random(11);
  std::uniform_int_distribution<int32_t> sum_of(-200000, 200000), row_sum_of(-3000, 3000);
  for (int64_t out : outs) {
    Dequantization row{out,
                       std::vector<int32_t>(static_cast<size_t>(out)),
                       std::vector<int32_t>(static_cast<size_t>(out)),
                       normal_values(out, 0.01f, 5),
                       normal_values(out, 1.0f, 6),
                       normal_values(out, 2.0f, 9),
                       normal_values(out, 1.0f, 7)};
    for (size_t o = 0; o < row.sums.size(); ++o)
      row.sums[o] = sum_of(random), row.row_sums[o] = row_sum_of(random);
    const Dequantization& made = row;
    for (const float* b : {made.bias.data(), static_cast<const float*>(nullptr)}) {
      for (bool add : {false, true}) {
        for (const float* res : {static_cast<const float*>(nullptr), made.residual.data()}) {
          check(made, b, add, res);
        }
      }
    }
  }
}

// The row dequantized from sums in its own storage (in place, without add).
template <class Dequantize>
std::vector<float> dequantized_in_place(Dequantize dequantize, const Dequantization& row,
                                        const float* bias, const float* residual) {
  std::vector<float> y(row.sums.size());
  std::memcpy(y.data(), row.sums.data(), row.sums.size() * sizeof(int32_t));
  dequantize(reinterpret_cast<const int32_t*>(y.data()), row.q, row.weight_scales.data(),
             row.row_sums.data(), bias, false, residual, row.out, y.data());
  return y;
}

// The vector versions of the row passes: the scalar loops are their specification.
struct RowPasses {
  ValueRange (*range)(const float*, int64_t);
  void (*quantize)(const float*, int64_t, ActivationQuantization, int32_t, uint8_t*);
  void (*dequantize)(const int32_t*, ActivationQuantization, const float*, const int32_t*,
                     const float*, bool, const float*, int64_t, float*);
  RowStatistics (*statistics)(const float*, int64_t);
};

void expect_scalar_bits(const RowPasses& simd) {
  for (int64_t count : {1, 7, 8, 15, 16, 17, 31, 32, 33, 47, 48, 63, 64, 65, 100, 1027}) {
    std::vector<float> x = normal_values(count, 2.0f, static_cast<uint32_t>(count));
    const ValueRange scalar_range = scalar::activation_range(x.data(), count);
    const ValueRange simd_range = simd.range(x.data(), count);
    ASSERT_EQ(scalar_range.min, simd_range.min) << count;
    ASSERT_EQ(scalar_range.max, simd_range.max) << count;
    const ActivationQuantization q = choose_activation_quantization(scalar_range, 127);
    // Exact ties x / scale = k + 0.5 appear too: both round them to even.
    x[0] = 2.5f * q.scale;
    for (int32_t levels : {127, 255}) {
      std::vector<uint8_t> expected(x.size()), actual(x.size() + 1, 0xab);
      scalar::quantize_activations(x.data(), count, q, levels, expected.data());
      simd.quantize(x.data(), count, q, levels, actual.data());
      ASSERT_EQ(actual.back(), 0xab) << count;  // nothing written past the row
      actual.pop_back();
      ASSERT_EQ(expected, actual) << count;
    }
  }
  const std::initializer_list<int64_t> outs = {1, 7, 8, 9, 15, 16, 17, 31, 45, 64, 771, 3072};
  for_each_dequantization(
      outs, [&](const Dequantization& row, const float* b, bool add, const float* res) {
        std::vector<float> expected = row.before, actual = row.before;
        scalar::dequantize_row(row.sums.data(), row.q, row.weight_scales.data(),
                               row.row_sums.data(), b, add, res, row.out, expected.data());
        simd.dequantize(row.sums.data(), row.q, row.weight_scales.data(), row.row_sums.data(), b,
                        add, res, row.out, actual.data());
        for (int64_t o = 0; o < row.out; ++o) {
          ASSERT_EQ(bits_of(expected[o]), bits_of(actual[o])) << row.out << " " << o;
        }
        if (add) return;
        const std::vector<float> y = dequantized_in_place(simd.dequantize, row, b, res);
        for (int64_t o = 0; o < row.out; ++o) ASSERT_EQ(bits_of(expected[o]), bits_of(y[o])) << o;
      });
  for (int64_t out : outs) {
    const std::vector<float> x = normal_values(out, 3.0f, 8);
    const RowStatistics expected = scalar::row_statistics(x.data(), out);
    const RowStatistics actual = simd.statistics(x.data(), out);
    EXPECT_EQ(bits_of(expected.squares), bits_of(actual.squares)) << out;
    EXPECT_EQ(actual.range.min, expected.range.min) << out;
    EXPECT_EQ(actual.range.max, expected.range.max) << out;
  }
}

TEST(ActivationQuantization, Avx2MatchesScalarExactly) {
  if (!isa_supported(Isa::kAvx2)) GTEST_SKIP() << "AVX2 not supported on this CPU";
  expect_scalar_bits({avx2::activation_range, avx2::quantize_activations, avx2::dequantize_row,
                      avx2::row_statistics});
}

TEST(ActivationQuantization, Avx512MatchesScalarExactly) {
  if (!isa_supported(Isa::kAvx512)) GTEST_SKIP() << "AVX-512 not supported on this CPU";
  // The dequantization stays AVX2's under avx512.
  expect_scalar_bits({avx512::activation_range, avx512::quantize_activations, avx2::dequantize_row,
                      avx512::row_statistics});
}

// The dequantization of a row and the range and sum of squares behind the outlying-row test,
// against a double-precision worked value.
TEST(ActivationQuantization, DequantizedRowsAndRowStatistics) {
  const std::initializer_list<int64_t> outs = {1, 7, 8, 9, 31, 45, 64, 771, 3072};
  for_each_dequantization(
      outs, [&](const Dequantization& row, const float* b, bool add, const float* res) {
        std::vector<float> expected = row.before;
        scalar::dequantize_row(row.sums.data(), row.q, row.weight_scales.data(),
                               row.row_sums.data(), b, add, res, row.out, expected.data());
        for (int64_t o = 0; o < row.out; ++o) {
          const double value = double(row.q.scale) * row.weight_scales[o] *
                               (double(row.sums[o]) - double(row.q.zero_point) * row.row_sums[o]);
          const double worked =
              (add ? row.before[o] + value : value + (b ? b[o] : 0.0)) + (res ? res[o] : 0.0);
          const double magnitudes = std::fabs(worked) + std::fabs(value) + (res ? 2.0 : 0.0);
          ASSERT_NEAR(expected[o], worked, 1e-6 * magnitudes + 1e-6);
        }
        if (add) return;
        const std::vector<float> y = dequantized_in_place(scalar::dequantize_row, row, b, res);
        for (int64_t o = 0; o < row.out; ++o) ASSERT_EQ(bits_of(expected[o]), bits_of(y[o])) << o;
      });
  for (int64_t out : outs) {
    const std::vector<float> x = normal_values(out, 3.0f, 8);
    double worked = 0.0;
    for (float v : x) worked += double(v) * v;
    const RowStatistics statistics = scalar::row_statistics(x.data(), out);
    EXPECT_NEAR(statistics.squares, worked, 1e-5 * worked);
    const ValueRange range = scalar::activation_range(x.data(), out);
    EXPECT_EQ(statistics.range.min, range.min);
    EXPECT_EQ(statistics.range.max, range.max);
  }
}

// ---- saturation of the int8 kernels ---------------------------------------------------------

// One u8 x s8 product summed over K by the primitive tinyenc's int8 Linear uses (a 1x1
// convolution) and by a matmul, with all activations at `level` and all weights at `weight`.
float u8_dot(bool convolution, uint8_t level, int8_t weight, int64_t k) {
  using dnnl::memory;
  using tag = memory::format_tag;
  using dt = memory::data_type;
  Runtime runtime;
  const int64_t n = 16;
  std::vector<uint8_t> source(static_cast<size_t>(k), level);
  std::vector<int8_t> weights(static_cast<size_t>(k * n), weight);
  std::vector<float> out(static_cast<size_t>(n));
  dnnl::primitive primitive;
  memory::desc src, dst, packed_desc, plain_desc;
  if (convolution) {
    using Convolution = dnnl::convolution_forward;
    src = memory::desc({1, k, 1}, dt::u8, tag::acb);
    dst = memory::desc({1, n, 1}, dt::f32, tag::acb);
    plain_desc = memory::desc({n, k, 1}, dt::s8, tag::abc);
    const Convolution::primitive_desc pd(
        Convolution::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                          src, memory::desc({n, k, 1}, dt::s8, tag::any), dst, {1}, {0}, {0}),
        runtime.engine);
    packed_desc = pd.weights_desc();
    primitive = Convolution(pd);
  } else {
    src = memory::desc({1, k}, dt::u8, tag::ab);
    dst = memory::desc({1, n}, dt::f32, tag::ab);
    plain_desc = memory::desc({k, n}, dt::s8, tag::ab);
    const dnnl::matmul::primitive_desc pd(
        dnnl::matmul::desc(src, memory::desc({k, n}, dt::s8, tag::any), dst), runtime.engine);
    packed_desc = pd.weights_desc();
    primitive = dnnl::matmul(pd);
  }
  memory plain(plain_desc, runtime.engine, weights.data()), packed(packed_desc, runtime.engine);
  dnnl::reorder(plain, packed).execute(runtime.stream, plain, packed);
  primitive.execute(runtime.stream, {{DNNL_ARG_SRC, memory(src, runtime.engine, source.data())},
                                     {DNNL_ARG_WEIGHTS, packed},
                                     {DNNL_ARG_DST, memory(dst, runtime.engine, out.data())}});
  runtime.stream.wait();
  return out[0];
}

// Without VNNI, oneDNN 2.6's u8 x s8 kernels (vpmaddubsw) add pairs of products into a
// saturating int16: on AVX2 255 * 127 * 2 = 64770 comes out as 32767. The activation levels
// tinyenc uses must never get there, at the extremes of both signs.
TEST(Int8Saturation, ActivationLevelsStayExact) {
  SKIP_UNLESS_SUPPORTED(ComputeDtype::kInt8);
  const int32_t top = activation_levels();
  for (bool convolution : {true, false}) {
    for (int64_t k : {2, 3, 64, 768}) {
      for (int8_t weight : {int8_t{127}, int8_t{-127}}) {
        const double exact = double(top) * weight * k;
        EXPECT_EQ(u8_dot(convolution, static_cast<uint8_t>(top), weight, k), exact)
            << (convolution ? "convolution" : "matmul") << " k " << k << " weight " << +weight;
      }
    }
  }
}

// The same through the int8 Linear: activations at the top of their range times weights at the
// top of theirs, which would come out halved if pairs saturated.
TEST(Int8Saturation, LinearAtFullScale) {
  SKIP_UNLESS_SUPPORTED(ComputeDtype::kInt8);
  Runtime runtime;
  const int64_t in = 64, out = 8, rows = 3;
  std::vector<float> w(static_cast<size_t>(out * in), 0.5f),
      x(static_cast<size_t>(rows * in), 2.0f);
  Linear linear(runtime, LinearSource::of_f32(w.data(), out, in), nullptr, ComputeDtype::kInt8);
  std::vector<float> y(static_cast<size_t>(rows * out));
  linear(x.data(), rows, y.data());
  for (float v : y) EXPECT_NEAR(v, 64.0, 64.0 * 1e-5);
}

// ---- Linear in each dtype against double precision --------------------------------------------

struct LinearCase {
  int64_t rows;
  Epilogue epilogue;
  bool bias;
  bool residual;
};

// Runs `dtype`'s Linear and checks every element against the double reference within the
// dtype's bound (linear_reference.h).
void check_linear(ComputeDtype dtype, const LinearCase& c, int64_t in, int64_t out,
                  const std::vector<float>& w, const std::vector<float>& x) {
  Runtime runtime;
  const std::vector<float> bias = normal_values(out, 0.5f, 11);
  const std::vector<float> residual = normal_values(c.rows * out, 1.0f, 12);
  const float* b = c.bias ? bias.data() : nullptr;
  Linear linear(runtime, LinearSource::of_f32(w.data(), out, in), b, dtype);
  std::vector<float> y(static_cast<size_t>(c.rows * out));
  const float* r = c.residual ? residual.data() : nullptr;
  linear(x.data(), c.rows, y.data(), c.epilogue, r);
  const testing::LinearReference reference(x.data(), w.data(), b, c.rows, in, out);
  ASSERT_EQ(reference.mismatch(dtype, c.rows, c.epilogue, r, y.data()), "");
}

std::vector<LinearCase> linear_cases() {
  std::vector<LinearCase> cases;
  for (int64_t rows : {1, 7, 64, 65, 200}) {
    cases.push_back({rows, Epilogue::kNone, true, false});
    cases.push_back({rows, Epilogue::kGeluErf, true, false});
    cases.push_back({rows, Epilogue::kNone, false, true});
    cases.push_back({rows, Epilogue::kGeluTanh, true, true});
    cases.push_back({rows, Epilogue::kGeluErf, false, true});
  }
  cases.push_back({5, Epilogue::kRelu, true, true});
  cases.push_back({5, Epilogue::kTanh, false, false});
  return cases;
}

constexpr int64_t kIn = 96, kOut = 40;

TEST(LinearDtype, F32MatchesDouble) {
  const std::vector<float> w = normal_values(kOut * kIn, 0.1f, 1);
  for (const LinearCase& c : linear_cases()) {
    check_linear(ComputeDtype::kF32, c, kIn, kOut, w, normal_values(c.rows * kIn, 1.0f, 2));
  }
}

TEST(LinearDtype, Bf16WithinOperandRounding) {
  SKIP_UNLESS_SUPPORTED(ComputeDtype::kBF16);
  const std::vector<float> w = normal_values(kOut * kIn, 0.1f, 1);
  for (const LinearCase& c : linear_cases()) {
    check_linear(ComputeDtype::kBF16, c, kIn, kOut, w, normal_values(c.rows * kIn, 1.0f, 2));
  }
}

TEST(LinearDtype, Int8WithinQuantizationSteps) {
  SKIP_UNLESS_SUPPORTED(ComputeDtype::kInt8);
  std::vector<float> w = normal_values(kOut * kIn, 0.1f, 1);
  std::fill(w.begin(), w.begin() + kIn, 0.0f);  // an all-zero output channel
  for (const LinearCase& c : linear_cases()) {
    std::vector<float> x = normal_values(c.rows * kIn, 1.0f, 2);
    std::fill(x.begin(), x.begin() + kIn, 0.0f);  // a row of zero activations
    check_linear(ComputeDtype::kInt8, c, kIn, kOut, w, x);
  }
}

// A row with one value 200x its others (as a checkpoint's outlier tokens have) quantized with one
// scale would keep its ordinary values to a level or two, about 30x the error of a normal row.
// int8 quantizes such a row twice: its error stays that of the normal rows. The outlier's column
// of weights is zero, so that only the activations' rounding differs between the rows. (1024
// inputs: in a row of n values one outlier can stand at most sqrt(n) root mean squares out.)
TEST(LinearDtype, Int8RowWithAnOutlierKeepsItsPrecision) {
  SKIP_UNLESS_SUPPORTED(ComputeDtype::kInt8);
  constexpr int64_t kRows = 8, kOutlierRow = 3, kOutlierColumn = 5, kWide = 1024;
  std::vector<float> w = normal_values(kOut * kWide, 0.1f, 1);
  for (int64_t o = 0; o < kOut; ++o) w[o * kWide + kOutlierColumn] = 0.0f;
  std::vector<float> x = normal_values(kRows * kWide, 1.0f, 2);
  x[kOutlierRow * kWide + kOutlierColumn] = 200.0f;
  Runtime runtime;
  Linear linear(runtime, LinearSource::of_f32(w.data(), kOut, kWide), nullptr, ComputeDtype::kInt8);
  std::vector<float> y(static_cast<size_t>(kRows * kOut));
  linear(x.data(), kRows, y.data());
  std::vector<double> worst(kRows, 0.0);
  for (int64_t r = 0; r < kRows; ++r) {
    for (int64_t o = 0; o < kOut; ++o) {
      double expected = 0.0;
      for (int64_t i = 0; i < kWide; ++i) expected += double(x[r * kWide + i]) * w[o * kWide + i];
      worst[r] = std::max(worst[r], std::fabs(y[r * kOut + o] - expected));
    }
  }
  double others = 0.0;
  for (int64_t r = 0; r < kRows; ++r) {
    if (r != kOutlierRow) others = std::max(others, worst[r]);
  }
  EXPECT_GT(others, 0.0);
  EXPECT_LE(worst[kOutlierRow], 2.0 * others)
      << "the outlier's row: " << worst[kOutlierRow] << ", the others at most " << others;
}

// ---- weight source forms ----------------------------------------------------------------------

std::vector<float> run_linear(const LinearSource& source, ComputeDtype dtype, int64_t rows,
                              const std::vector<float>& x) {
  Runtime runtime;
  Linear linear(runtime, source, nullptr, dtype);
  std::vector<float> y(static_cast<size_t>(rows * source.out_features));
  linear(x.data(), rows, y.data(), Epilogue::kGeluErf);
  return y;
}

struct S8Matrix {
  std::vector<int8_t> q;
  std::vector<float> scales;
  std::vector<float> dequantized;
  LinearSource source(int64_t out, int64_t in) const {
    LinearSource s;
    s.s8 = q.data();
    s.scales = scales.data();
    s.out_features = out;
    s.in_features = in;
    return s;
  }
};

// An s8 matrix whose every row reaches +-127, so that quantizing its dequantized form gives it
// back exactly.
S8Matrix s8_matrix(int64_t out, int64_t in) {
  S8Matrix m;
  std::mt19937 random(9);
  std::uniform_int_distribution<int> level(-127, 127);
  for (int64_t o = 0; o < out; ++o) {
    for (int64_t i = 0; i < in; ++i)
      m.q.push_back(static_cast<int8_t>(i == o % in ? 127 : level(random)));
    m.scales.push_back(0.001f * static_cast<float>(o + 1));
  }
  for (int64_t o = 0; o < out; ++o) {
    for (int64_t i = 0; i < in; ++i) m.dequantized.push_back(float(m.q[o * in + i]) * m.scales[o]);
  }
  return m;
}

TEST(WeightSource, S8SourceEqualsItsDequantizedF32) {
  const S8Matrix m = s8_matrix(kOut, kIn);
  for (int64_t rows : {3, 100}) {
    const std::vector<float> x = normal_values(rows * kIn, 1.0f, 4);
    // f32 compute: the s8 source dequantized is the f32 matrix itself.
    EXPECT_EQ(run_linear(m.source(kOut, kIn), ComputeDtype::kF32, rows, x),
              run_linear(LinearSource::of_f32(m.dequantized.data(), kOut, kIn), ComputeDtype::kF32,
                         rows, x));
    if (!dtype_unsupported_reason(ComputeDtype::kInt8).empty()) continue;
    // int8 compute: quantizing the dequantized matrix finds the same levels and scales.
    EXPECT_EQ(run_linear(m.source(kOut, kIn), ComputeDtype::kInt8, rows, x),
              run_linear(LinearSource::of_f32(m.dequantized.data(), kOut, kIn), ComputeDtype::kInt8,
                         rows, x));
  }
}

TEST(WeightSource, Bf16SourceEqualsItsWidenedF32) {
  const std::vector<float> w = normal_values(kOut * kIn, 0.1f, 1);
  std::vector<uint16_t> bits(w.size());
  convert_to_bf16(w.data(), int64_t(w.size()), bits.data());
  std::vector<float> widened(w.size());
  for (size_t i = 0; i < w.size(); ++i) widened[i] = f32_from_bf16(bits[i]);
  LinearSource source;
  source.bf16 = bits.data();
  source.out_features = kOut;
  source.in_features = kIn;
  const std::vector<float> x = normal_values(9 * kIn, 1.0f, 4);
  EXPECT_EQ(run_linear(source, ComputeDtype::kF32, 9, x),
            run_linear(LinearSource::of_f32(widened.data(), kOut, kIn), ComputeDtype::kF32, 9, x));
}

TEST(WeightSource, KeptInPlaceWhenAlreadyInTheComputeDtype) {
  Runtime runtime;
  const S8Matrix m = s8_matrix(kOut, kIn);
  const WeightMatrix int8(runtime, m.source(kOut, kIn), ComputeDtype::kInt8);
  EXPECT_EQ(int8.data(), m.q.data());
  EXPECT_EQ(int8.scales(), m.scales.data());
  for (int64_t o = 0; o < kOut; ++o) {
    int32_t sum = 0;
    for (int64_t i = 0; i < kIn; ++i) sum += m.q[o * kIn + i];
    ASSERT_EQ(int8.row_sums()[o], sum);
  }
  std::vector<uint16_t> bits(static_cast<size_t>(kOut * kIn), 0x3f80);
  LinearSource bf16;
  bf16.bf16 = bits.data();
  bf16.out_features = kOut;
  bf16.in_features = kIn;
  EXPECT_EQ(WeightMatrix(runtime, bf16, ComputeDtype::kBF16).data(), bits.data());
  // f32 -> bf16 rounds to nearest even.
  const std::vector<float> w = normal_values(kOut * kIn, 0.1f, 1);
  const WeightMatrix rounded(runtime, LinearSource::of_f32(w.data(), kOut, kIn),
                             ComputeDtype::kBF16);
  const auto* stored = static_cast<const uint16_t*>(rounded.data());
  for (size_t i = 0; i < w.size(); ++i) ASSERT_EQ(stored[i], bf16_from_f32(w[i]));
}

TEST(WeightSource, RejectsNoFormOrTwo) {
  Runtime runtime;
  std::vector<float> w(4, 1.0f);
  std::vector<uint16_t> bits(4, 0);
  LinearSource none;
  none.out_features = 2;
  none.in_features = 2;
  EXPECT_THROW(WeightMatrix(runtime, none, ComputeDtype::kF32), std::invalid_argument);
  LinearSource two = LinearSource::of_f32(w.data(), 2, 2);
  two.bf16 = bits.data();
  EXPECT_THROW(WeightMatrix(runtime, two, ComputeDtype::kF32), std::invalid_argument);
  LinearSource s8_without_scales;
  const int8_t q[4] = {1, 2, 3, 4};
  s8_without_scales.s8 = q;
  s8_without_scales.out_features = 2;
  s8_without_scales.in_features = 2;
  EXPECT_THROW(WeightMatrix(runtime, s8_without_scales, ComputeDtype::kInt8),
               std::invalid_argument);
}

// QKV stacking concatenates rows, and per-channel scales with them.
TEST(WeightSource, StackingKeepsEachForm) {
  const S8Matrix a = s8_matrix(3, 4), b = s8_matrix(2, 4);
  const StackedSource stacked({a.source(3, 4), b.source(2, 4)});
  const LinearSource& s = stacked.source();
  ASSERT_NE(s.s8, nullptr);
  ASSERT_EQ(s.out_features, 5);
  for (int64_t o = 0; o < 5; ++o) {
    for (int64_t i = 0; i < 4; ++i) {
      const float expected = o < 3 ? a.dequantized[o * 4 + i] : b.dequantized[(o - 3) * 4 + i];
      ASSERT_EQ(s.at(o, i), expected) << o << ", " << i;
    }
  }
  // Mixed forms become f32 with the same values.
  const std::vector<float> f = normal_values(8, 1.0f, 3);
  const StackedSource mixed({a.source(3, 4), LinearSource::of_f32(f.data(), 2, 4)});
  ASSERT_NE(mixed.source().f32, nullptr);
  EXPECT_EQ(mixed.source().at(1, 2), a.dequantized[1 * 4 + 2]);
  EXPECT_EQ(mixed.source().at(4, 3), f[7]);
}

}  // namespace
}  // namespace tinyenc
