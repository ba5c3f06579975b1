// The int8 Linear's erf-GELU against the exact formula in double precision, and its AVX2 version
// against the scalar specification bit for bit.
#include "engine/ops/gelu.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "engine/isa.h"

namespace tinyenc {
namespace {

double exact_gelu(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }

uint32_t bits_of(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
}

// Every 1/64 over [-16, 16], and values spread over many magnitudes.
std::vector<float> sample_values() {
  std::vector<float> values;
  for (int i = -1024; i <= 1024; ++i) values.push_back(static_cast<float>(i) / 64.0f);
  std::mt19937 random(3);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  for (int i = 0; i < 4000; ++i) values.push_back(normal(random));
  for (float m = 1e-30f; m < 1e30f; m *= 7.3f) {
    values.push_back(m);
    values.push_back(-m);
  }
  return values;
}

TEST(GeluErf, WithinErfApproximationOfTheExactFormula) {
  // A&S 7.1.26 is within 1.5e-7 of erf, so gelu within x/2 * 1.5e-7, plus the float roundings
  // of the result (a few of its ulps).
  for (const float x : sample_values()) {
    const double exact = exact_gelu(x);
    const float got = scalar::gelu_erf(x);
    const double bound = 0.75e-7 * std::fabs(x) +
                         4.0 * std::numeric_limits<float>::epsilon() * std::fabs(exact) + 1e-37;
    ASSERT_NEAR(got, exact, bound) << "x = " << x;
  }
}

TEST(GeluErf, WorkedValuesAndEdges) {
  // gelu(1) = 0.5 (1 + erf(0.7071...)) = 0.8413447460685429; gelu(-1) = 1 - gelu(1) - 1.
  EXPECT_NEAR(scalar::gelu_erf(1.0f), 0.8413447460685429, 2e-7);
  EXPECT_NEAR(scalar::gelu_erf(-1.0f), -0.15865525393145707, 2e-7);
  EXPECT_EQ(scalar::gelu_erf(0.0f), 0.0f);
  EXPECT_EQ(scalar::gelu_erf(std::numeric_limits<float>::infinity()),
            std::numeric_limits<float>::infinity());
  // -infinity (and anything below -13) gives a magnitude under 1e-37, not NaN.
  const float at_minus_infinity = scalar::gelu_erf(-std::numeric_limits<float>::infinity());
  EXPECT_LE(std::fabs(at_minus_infinity), 1e-37f);
  EXPECT_TRUE(std::isnan(scalar::gelu_erf(std::nanf(""))));
  EXPECT_EQ(scalar::gelu_erf(3e38f), 3e38f);
}

// The SIMD version `simd` against the scalar specification, bit for bit.
void expect_scalar_bits(void (*simd)(float*, int64_t)) {
  std::vector<float> values = sample_values();
  const float specials[] = {0.0f,
                            -0.0f,
                            -13.0f,
                            -13.000001f,
                            -12.999999f,
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::denorm_min(),
                            -std::numeric_limits<float>::denorm_min(),
                            std::numeric_limits<float>::max(),
                            std::numeric_limits<float>::lowest(),
                            std::nanf("")};
  values.insert(values.end(), std::begin(specials), std::end(specials));
  // The two-vector, one-vector and remainder paths of each width.
  for (const int64_t offset : {0, 1, 5, 13, 20}) {
    std::vector<float> expected(values.begin() + offset, values.end()), actual = expected;
    scalar::gelu_erf(expected.data(), static_cast<int64_t>(expected.size()));
    simd(actual.data(), static_cast<int64_t>(actual.size()));
    for (size_t i = 0; i < expected.size(); ++i) {
      if (std::isnan(expected[i])) {
        ASSERT_TRUE(std::isnan(actual[i])) << i;
      } else {
        ASSERT_EQ(bits_of(expected[i]), bits_of(actual[i]))
            << "x = " << values[i + static_cast<size_t>(offset)];
      }
    }
  }
}

TEST(GeluErf, Avx2MatchesScalarExactly) {
  if (!isa_supported(Isa::kAvx2)) GTEST_SKIP() << "AVX2 not supported on this CPU";
  expect_scalar_bits(avx2::gelu_erf);
}

TEST(GeluErf, Avx512MatchesScalarExactly) {
  if (!isa_supported(Isa::kAvx512)) GTEST_SKIP() << "AVX-512 not supported on this CPU";
  expect_scalar_bits(avx512::gelu_erf);
}

}  // namespace
}  // namespace tinyenc
