// The AMX tile product (engine/ops/tile_product.h) against plain loops: int8 sums exactly (u8 x s8
// in int32 is exact), bf16 within the rounding of float sums of exact products; at row counts
// that end on, inside and past the kernel's 16- and 32-row blocks, with the extremes of u8 and s8.
// On a CPU without AMX (or with ONEDNN_MAX_CPU_ISA below it) the tests say so and skip; the
// packing's order is checked everywhere.
#include "engine/ops/tile_product.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "engine/bf16.h"

namespace tinyenc {
namespace {

struct Shape {
  int64_t rows, in, out;
};

// Row counts around the blocks (16, 32), at in/out sizes of the presets and of small models.
const Shape kShapes[] = {{1, 64, 32},     {3, 128, 64},     {16, 64, 96},  {17, 256, 32},
                         {31, 64, 64},    {32, 192, 32},    {33, 128, 64}, {47, 384, 128},
                         {100, 768, 256}, {128, 768, 2304}, {8, 3072, 768}};

// Why the tile product cannot run in this process for `dtype`, or empty. (GTEST_SKIP must be
// called in the test body itself: in a helper it only returns from the helper.)
std::string why_no_tiles(ComputeDtype dtype) {
  if (ops::tiles::available(dtype)) return "";
  return "no AMX " + std::string(compute_dtype_name(dtype)) +
         " tiles in this process (CPU, ONEDNN_MAX_CPU_ISA or the kernel's grant): the tile "
         "product is not run";
}

TEST(TileProduct, Int8SumsAreExact) {
  if (const std::string why = why_no_tiles(ComputeDtype::kInt8); !why.empty()) GTEST_SKIP() << why;
  std::mt19937 random(7);
  std::uniform_int_distribution<int> u8(0, 255), s8(-128, 127), extreme(0, 9);
  for (const Shape& s : kShapes) {
    std::vector<uint8_t> a(static_cast<size_t>((s.rows + ops::tiles::kSlackRows) * s.in));
    std::vector<int8_t> w(static_cast<size_t>(s.out * s.in));
    // One value in ten at an extreme (255; -128 or 127): the sums' largest magnitudes.
    for (uint8_t& v : a) v = static_cast<uint8_t>(extreme(random) == 0 ? 255 : u8(random));
    for (int8_t& v : w) {
      const int e = extreme(random);
      v = static_cast<int8_t>(e == 0 ? -128 : e == 1 ? 127 : s8(random));
    }
    const std::vector<std::byte> packed =
        ops::tiles::pack(ComputeDtype::kInt8, w.data(), s.out, s.in);
    std::vector<int32_t> sums(static_cast<size_t>(s.rows * s.out), -1);
    ops::tiles::product(ComputeDtype::kInt8, a.data(), s.rows, s.in, packed.data(), s.out,
                        sums.data());
    for (int64_t r = 0; r < s.rows; ++r) {
      for (int64_t o = 0; o < s.out; ++o) {
        int32_t expected = 0;
        for (int64_t i = 0; i < s.in; ++i) {
          expected += int32_t{a[static_cast<size_t>(r * s.in + i)]} *
                      int32_t{w[static_cast<size_t>(o * s.in + i)]};
        }
        ASSERT_EQ(sums[static_cast<size_t>(r * s.out + o)], expected)
            << s.rows << "x" << s.in << "x" << s.out << " at " << r << ", " << o;
      }
    }
  }
}

TEST(TileProduct, Bf16SumsWithinFloatRounding) {
  if (const std::string why = why_no_tiles(ComputeDtype::kBF16); !why.empty()) GTEST_SKIP() << why;
  std::mt19937 random(11);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (const Shape& s : kShapes) {
    std::vector<uint16_t> a(static_cast<size_t>((s.rows + ops::tiles::kSlackRows) * s.in));
    std::vector<uint16_t> w(static_cast<size_t>(s.out * s.in));
    for (uint16_t& v : a) v = bf16_from_f32(normal(random));
    for (uint16_t& v : w) v = bf16_from_f32(normal(random));
    const std::vector<std::byte> packed =
        ops::tiles::pack(ComputeDtype::kBF16, w.data(), s.out, s.in);
    std::vector<float> sums(static_cast<size_t>(s.rows * s.out), -1.0f);
    ops::tiles::product(ComputeDtype::kBF16, a.data(), s.rows, s.in, packed.data(), s.out,
                        sums.data());
    for (int64_t r = 0; r < s.rows; ++r) {
      for (int64_t o = 0; o < s.out; ++o) {
        // Products of two bf16 values are exact in float; only the float sums round, each
        // at most 2^-24 of the running magnitude, at most `in` of them.
        double expected = 0.0, magnitude = 0.0;
        for (int64_t i = 0; i < s.in; ++i) {
          const double p = double(f32_from_bf16(a[static_cast<size_t>(r * s.in + i)])) *
                           double(f32_from_bf16(w[static_cast<size_t>(o * s.in + i)]));
          expected += p;
          magnitude += std::fabs(p);
        }
        ASSERT_NEAR(sums[static_cast<size_t>(r * s.out + o)], expected,
                    magnitude * double(s.in) * 0x1p-24)
            << s.rows << "x" << s.in << "x" << s.out << " at " << r << ", " << o;
      }
    }
  }
}

TEST(TileProduct, PackingOrder) {
  // 32 outputs x 128 inputs of distinct s8 values: block 0, step 1, tile 1, tile row 2, output
  // 3 holds inputs 64 + 8 .. 64 + 11 of output 16 + 3.
  const int64_t out = 32, in = 128;
  std::vector<int8_t> w(static_cast<size_t>(out * in));
  for (int64_t o = 0; o < out; ++o) {
    for (int64_t i = 0; i < in; ++i) w[static_cast<size_t>(o * in + i)] = int8_t((o * 7 + i) % 101);
  }
  const std::vector<std::byte> packed = ops::tiles::pack(ComputeDtype::kInt8, w.data(), out, in);
  ASSERT_EQ(packed.size(), w.size());
  const size_t at = ((1 * 2 + 1) * 16 + 2) * 64 + 3 * 4;
  for (int j = 0; j < 4; ++j) {
    EXPECT_EQ(static_cast<int8_t>(packed[at + static_cast<size_t>(j)]),
              w[static_cast<size_t>(19 * in + 64 + 8 + j)]);
  }
  // bf16: 2 inputs per group, 32 per step.
  std::vector<uint16_t> w16(static_cast<size_t>(out * in));
  for (size_t i = 0; i < w16.size(); ++i) w16[i] = static_cast<uint16_t>(i);
  const std::vector<std::byte> packed16 =
      ops::tiles::pack(ComputeDtype::kBF16, w16.data(), out, in);
  uint16_t pair[2];
  std::memcpy(pair, packed16.data() + at, sizeof pair);  // step 1, tile 1, row 2, output 3
  EXPECT_EQ(pair[0], w16[static_cast<size_t>(19 * in + 32 + 4)]);
  EXPECT_EQ(pair[1], w16[static_cast<size_t>(19 * in + 32 + 5)]);
}

TEST(TileProduct, ShapesThatDoNotFitAreRefused) {
  EXPECT_TRUE(ops::tiles::fits(ComputeDtype::kInt8, 768, 2304));
  EXPECT_FALSE(ops::tiles::fits(ComputeDtype::kInt8, 96, 64));  // in: not a multiple of 64
  EXPECT_TRUE(ops::tiles::fits(ComputeDtype::kBF16, 96, 64));   // 3 steps of 32
  EXPECT_FALSE(ops::tiles::fits(ComputeDtype::kBF16, 64, 48));  // out: not a multiple of 32
  EXPECT_FALSE(ops::tiles::fits(ComputeDtype::kF32, 768, 768));
  std::vector<int8_t> w(96 * 64);
  EXPECT_THROW(ops::tiles::pack(ComputeDtype::kInt8, w.data(), 64, 96), std::logic_error);
}

}  // namespace
}  // namespace tinyenc
