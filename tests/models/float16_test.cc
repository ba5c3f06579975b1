// F16 and BF16 widen to float32 exactly: every bit pattern below is checked against its value.
#include "models/float16.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "engine/bf16.h"

namespace tinyenc {
namespace {

uint32_t bits_of(float value) { return std::bit_cast<uint32_t>(value); }

TEST(Float16, NormalValues) {
  EXPECT_EQ(float_from_f16(0x3C00), 1.0f);
  EXPECT_EQ(float_from_f16(0xBC00), -1.0f);
  EXPECT_EQ(float_from_f16(0x4000), 2.0f);
  EXPECT_EQ(float_from_f16(0x3555), 0.333251953125f);        // nearest F16 to 1/3
  EXPECT_EQ(float_from_f16(0x7BFF), 65504.0f);               // largest finite F16
  EXPECT_EQ(float_from_f16(0x0400), std::ldexp(1.0f, -14));  // smallest normal
  EXPECT_EQ(float_from_f16(0x3BFF), 1.0f - std::ldexp(1.0f, -11));
}

TEST(Float16, ZerosKeepTheirSign) {
  EXPECT_EQ(bits_of(float_from_f16(0x0000)), 0x00000000u);
  EXPECT_EQ(bits_of(float_from_f16(0x8000)), 0x80000000u);
}

TEST(Float16, SubnormalsBecomeNormalFloats) {
  EXPECT_EQ(float_from_f16(0x0001), std::ldexp(1.0f, -24));  // smallest subnormal
  EXPECT_EQ(float_from_f16(0x8001), -std::ldexp(1.0f, -24));
  EXPECT_EQ(float_from_f16(0x0200), std::ldexp(1.0f, -15));
  EXPECT_EQ(float_from_f16(0x03FF), std::ldexp(1023.0f, -24));  // largest subnormal
  EXPECT_EQ(float_from_f16(0x0155), std::ldexp(341.0f, -24));
}

TEST(Float16, InfinityAndNaN) {
  EXPECT_EQ(float_from_f16(0x7C00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(float_from_f16(0xFC00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(float_from_f16(0x7E00)));
  EXPECT_EQ(bits_of(float_from_f16(0x7E00)), 0x7FC00000u);  // quiet NaN, payload kept
  EXPECT_EQ(bits_of(float_from_f16(0x7C01)), 0x7F802000u);  // signalling payload kept
}

TEST(Float16, EveryPatternMatchesTheFormula) {
  // value = (-1)^s * 2^(e-15) * (1 + m/1024), or 2^-14 * m/1024 for e = 0.
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    const uint32_t exponent = (bits >> 10) & 0x1f;
    if (exponent == 0x1f) continue;
    const float mantissa = static_cast<float>(bits & 0x3ff);
    const float magnitude = exponent == 0
                                ? std::ldexp(mantissa, -24)
                                : std::ldexp(1.0f + mantissa / 1024.0f, int(exponent) - 15);
    const float expected = (bits & 0x8000) ? -magnitude : magnitude;
    ASSERT_EQ(bits_of(float_from_f16(static_cast<uint16_t>(bits))), bits_of(expected))
        << "F16 0x" << std::hex << bits;
  }
}

TEST(BFloat16, IsTheUpperHalfOfAFloat) {
  EXPECT_EQ(f32_from_bf16(0x3F80), 1.0f);
  EXPECT_EQ(f32_from_bf16(0xBF80), -1.0f);
  EXPECT_EQ(f32_from_bf16(0x4049), 3.140625f);
  EXPECT_EQ(f32_from_bf16(0x0001), std::ldexp(1.0f, -133));  // smallest subnormal
  EXPECT_EQ(f32_from_bf16(0x7F7F), 0x1.FEp127f);             // largest finite
  EXPECT_EQ(f32_from_bf16(0x7F80), std::numeric_limits<float>::infinity());
  EXPECT_EQ(f32_from_bf16(0xFF80), -std::numeric_limits<float>::infinity());
  EXPECT_EQ(bits_of(f32_from_bf16(0x8000)), 0x80000000u);
  EXPECT_EQ(bits_of(f32_from_bf16(0x7FC1)), 0x7FC10000u);
}

TEST(Float16, ConvertsMisalignedArrays) {
  // Little-endian 1.0, -2.0, 0.5 at an odd address.
  const unsigned char raw[] = {0xAA, 0x00, 0x3C, 0x00, 0xC0, 0x00, 0x38};
  std::vector<float> values(3);
  convert_f16_to_float(reinterpret_cast<const std::byte*>(raw + 1), 3, values.data());
  EXPECT_EQ(values, (std::vector<float>{1.0f, -2.0f, 0.5f}));
  const unsigned char bf16[] = {0xAA, 0x80, 0x3F, 0x00, 0xC0};
  convert_bf16_to_float(reinterpret_cast<const std::byte*>(bf16 + 1), 2, values.data());
  EXPECT_EQ(values[0], 1.0f);
  EXPECT_EQ(values[1], -2.0f);
}

}  // namespace
}  // namespace tinyenc
