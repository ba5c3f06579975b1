// The sinusoidal table against the seed article: its hand-computed d_model=4 table, the formula
// in double precision, and the seed's PyTorch module itself (golden files written by
// tools/golden/seed_pe_module.py).
#include "engine/pe/sinusoidal.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "tests/support/float_tolerance.h"
#include "tests/support/test_data.h"

namespace tinyenc {
namespace {

std::vector<float> table(int64_t d_model, int64_t positions,
                         SinusoidalLayout layout = SinusoidalLayout::kInterleaved) {
  std::vector<float> values(static_cast<size_t>(d_model * positions));
  sinusoidal_rows(SinusoidalParams{layout, 10000.0}, d_model, 0, positions, values.data());
  return values;
}

TEST(Sinusoidal, SeedHandComputedTable) {
  // The article's table for d_model = 4, positions 0..2 (three decimals).
  const float expected[3][4] = {
      {0.000f, 1.000f, 0.000f, 1.000f},
      {0.841f, 0.540f, 0.010f, 1.000f},
      {0.909f, -0.416f, 0.020f, 1.000f},
  };
  const std::vector<float> values = table(4, 3);
  for (int pos = 0; pos < 3; ++pos) {
    for (int i = 0; i < 4; ++i) {
      // Three decimals: within half a unit of the third (float rounding is 1e-7 more at most).
      EXPECT_NEAR(values[pos * 4 + i], expected[pos][i], 5e-4) << "pos " << pos << " dim " << i;
    }
  }
}

TEST(Sinusoidal, SeedTableMatchesFormulaInDouble) {
  // PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(...), evaluated in double.
  // The float table rounds div_term (expf: about an ulp) and the angle pos * div_term <= 2
  // (2^-24 of it), moving the angle by at most 3 * 2^-24 * 2 rad, and sinf/cosf add an ulp
  // below 1: within 4 ulps at 1 (4.8e-7).
  const double tolerance = 4 * testing::float_ulp(1.0);
  const std::vector<float> values = table(4, 3);
  for (int pos = 0; pos < 3; ++pos) {
    for (int i = 0; i < 2; ++i) {
      const double angle = pos / std::pow(10000.0, 2.0 * i / 4.0);
      EXPECT_NEAR(values[pos * 4 + 2 * i], std::sin(angle), tolerance);
      EXPECT_NEAR(values[pos * 4 + 2 * i + 1], std::cos(angle), tolerance);
    }
  }
}

TEST(Sinusoidal, ConcatLayoutHoldsTheSameValuesSinHalfThenCosHalf) {
  const int64_t d = 16;
  const std::vector<float> interleaved = table(d, 50);
  const std::vector<float> concat = table(d, 50, SinusoidalLayout::kConcat);
  for (int64_t pos = 0; pos < 50; ++pos) {
    for (int64_t i = 0; i < d / 2; ++i) {
      // The same float computations stored in another order: identical bits.
      EXPECT_EQ(concat[pos * d + i], interleaved[pos * d + 2 * i]);
      EXPECT_EQ(concat[pos * d + d / 2 + i], interleaved[pos * d + 2 * i + 1]);
    }
  }
  // fairseq's sinusoidal table for the same d: dims [0, 8) = sin, [8, 16) = cos. Position 1 at
  // frequency e^0 = 1 is the angle 1 exactly: only sinf/cosf round, within an ulp (6e-8 here).
  EXPECT_NEAR(concat[1 * d + 0], std::sin(1.0), 1e-7);
  EXPECT_NEAR(concat[1 * d + 8], std::cos(1.0), 1e-7);
}

TEST(Sinusoidal, BaseChangesFrequencies) {
  const std::vector<float> frequencies = sinusoidal_frequencies(8, 100.0);
  // expf (within an ulp) of a float exponent x that is off by 2^-24 |x|: the frequency e^x is
  // off by at most (|x| + 2) 2^-24 e^x, below 2^-24 = 6e-8 for these x (-1.15, -2.3, -3.45;
  // e^0 is exact).
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(frequencies[i], std::pow(100.0, -2.0 * i / 8.0), 1e-7);
}

TEST(Sinusoidal, RejectsOddOrEmptyWidth) {
  std::vector<float> out(16);
  EXPECT_THROW(sinusoidal_rows({}, 3, 0, 1, out.data()), std::invalid_argument);
  EXPECT_THROW(sinusoidal_rows({}, 0, 0, 1, out.data()), std::invalid_argument);
  EXPECT_THROW(sinusoidal_frequencies(4, 1.0), std::invalid_argument);
}

TEST(Sinusoidal, TableGrowsWithoutChangingEarlierRows) {
  SinusoidalTable cached(32, {});
  const std::vector<float> first(cached.rows(10), cached.rows(10) + 10 * 32);
  const float* grown = cached.rows(1000);
  EXPECT_GE(cached.positions(), 1000);
  // Rows are computed by the same code whatever the table size: identical bits.
  EXPECT_EQ(std::memcmp(first.data(), grown, first.size() * sizeof(float)), 0);
  const std::vector<float> direct = table(32, 1000);
  EXPECT_EQ(std::memcmp(direct.data(), grown, direct.size() * sizeof(float)), 0);
}

// Translation by k positions is a fixed block rotation (the article's reason sinusoids let a
// model attend by relative position): [sin(w(p+k)), cos(w(p+k))] = R(wk) [sin(wp), cos(wp)].
TEST(Sinusoidal, ShiftIsAFixedRotation) {
  const int64_t d = 64;
  const std::vector<float> values = table(d, 200);
  const std::vector<float> frequencies = sinusoidal_frequencies(d, 10000.0);
  // The rotation is taken in double with the table's own frequencies, so only the float angles
  // of the two rows (2^-24 of angles below 200 rad each) and sinf/cosf (an ulp) differ from it.
  const double tolerance = 2 * testing::kFloatRoundoff * 200 + 2 * testing::float_ulp(1.0);
  for (int64_t k : {1, 5, 37}) {
    for (int64_t pos = 0; pos + k < 200; pos += 7) {
      for (int64_t i = 0; i < d / 2; ++i) {
        const double step = static_cast<double>(k) * frequencies[i];
        const double s = values[pos * d + 2 * i];
        const double c = values[pos * d + 2 * i + 1];
        EXPECT_NEAR(values[(pos + k) * d + 2 * i], s * std::cos(step) + c * std::sin(step),
                    tolerance);
        EXPECT_NEAR(values[(pos + k) * d + 2 * i + 1], c * std::cos(step) - s * std::sin(step),
                    tolerance);
      }
    }
  }
}

struct Golden {
  nlohmann::json meta;
  std::filesystem::path dir;
};

Golden load_golden() {
  const std::filesystem::path dir = testing::source_dir() / "tests" / "golden" / "seed_pe";
  return {testing::read_json(dir / "seed_pe.json"), dir};
}

std::vector<float> read_rows(const std::filesystem::path& path, size_t expected_floats) {
  const std::vector<char> bytes = testing::read_bytes(path);
  EXPECT_EQ(bytes.size(), expected_floats * sizeof(float)) << path;
  std::vector<float> values(bytes.size() / sizeof(float));
  std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));
  return values;
}

// The seed's module run verbatim by PyTorch (reference dispatch), d_model 4, 16 and 512, all
// positions < 5000 (d_model 512 subsampled, with the first and last 64 rows).
TEST(Sinusoidal, MatchesSeedPyTorchModule) {
  const Golden golden = load_golden();
  ASSERT_EQ(golden.meta["reference_capability"], "NO");
  for (const auto& entry : golden.meta["tables"]) {
    const int64_t d = entry["d_model"];
    const std::vector<int64_t> positions = entry["positions"];
    const std::vector<float> expected =
        read_rows(golden.dir / entry["file"].get<std::string>(), positions.size() * d);
    std::vector<float> frequencies = sinusoidal_frequencies(d, 10000.0);
    const std::vector<float> golden_frequencies = entry["div_term"];
    EXPECT_EQ(frequencies, golden_frequencies) << "div_term, d_model " << d;

    SinusoidalTable cached(d, {});
    const float* ours = cached.rows(5000);
    double max_difference = 0.0;
    for (size_t row = 0; row < positions.size(); ++row) {
      for (int64_t i = 0; i < d; ++i) {
        const double difference =
            std::abs(ours[positions[row] * d + i] - expected[row * d + static_cast<size_t>(i)]);
        max_difference = std::max(max_difference, difference);
      }
    }
    // The same float div_term (checked above) and float angles: only sinf/cosf round, each
    // within an ulp of exact (glibc), so the tables agree within two ulps below 1.
    EXPECT_LE(max_difference, 2 * testing::float_ulp(1.0)) << "d_model " << d;
  }
}

// Why float32 semantics matter: a table computed in double precision (angle not rounded to
// float32) is up to ~5e-4 away from what a model trained with the module saw near position 5000.
TEST(Sinusoidal, DoublePrecisionTableDiffersFromModuleAtHighPositions) {
  const Golden golden = load_golden();
  const auto& entry = golden.meta["tables"][2];
  ASSERT_EQ(entry["d_model"], 512);
  const std::vector<int64_t> positions = entry["positions"];
  const std::vector<float> expected =
      read_rows(golden.dir / entry["file"].get<std::string>(), positions.size() * 512);
  double max_difference = 0.0;
  for (size_t row = 0; row < positions.size(); ++row) {
    for (int64_t i = 0; i < 256; ++i) {
      const double angle = positions[row] * std::exp(2.0 * i * -std::log(10000.0) / 512.0);
      max_difference =
          std::max(max_difference, std::abs(std::sin(angle) - expected[row * 512 + 2 * i]));
    }
  }
  // Angles near 5000 rad are rounded to float by up to half an ulp there, 2.4e-4: the sines
  // move by up to that much (the float computations themselves are within 2.4e-7).
  EXPECT_GT(max_difference, 1e-4);
  EXPECT_LT(max_difference, 1e-3);
}

// PyTorch 1.13's default (vectorized) dispatch computes div_term with a float32 exp that is not
// correctly rounded: for d_model = 512 about 1 in 10 entries is one ulp off, which moves the
// table by ~2.4e-4 at positions near 5000 on this AVX2 path. tinyenc follows the reference path.
TEST(Sinusoidal, DocumentsPyTorchVectorizedExpDifference) {
  const Golden golden = load_golden();
  const auto& entry = golden.meta["tables"][2];
  const auto& vectorized = entry["vectorized"];
  const std::vector<float> reference_div = entry["div_term"];
  const std::vector<float> vectorized_div = vectorized["div_term"];
  int differing = 0;
  for (size_t i = 0; i < reference_div.size(); ++i) {
    if (reference_div[i] == vectorized_div[i]) continue;
    ++differing;
    EXPECT_EQ(std::abs(std::nextafter(reference_div[i], vectorized_div[i]) - vectorized_div[i]),
              0.0f)
        << "entry " << i << " is more than one ulp away";
  }
  EXPECT_GT(differing, 256 / 20);
  EXPECT_LT(differing, 256 / 5);

  const std::vector<int64_t> positions = vectorized["positions"];
  const std::vector<float> rows =
      read_rows(golden.dir / vectorized["file"].get<std::string>(), positions.size() * 512);
  SinusoidalTable cached(512, {});
  const float* ours = cached.rows(5000);
  double max_difference = 0.0;
  for (size_t row = 0; row < positions.size(); ++row) {
    for (size_t i = 0; i < 512; ++i) {
      max_difference = std::max(
          max_difference, double(std::abs(ours[positions[row] * 512 + i] - rows[row * 512 + i])));
    }
  }
  // One ulp of div_term (relative 2^-23 at most) times positions up to 5000: the angles move by
  // up to 6e-4 rad for the largest frequencies, far more than float rounding of the tables.
  EXPECT_GT(max_difference, 5e-5);
  EXPECT_LT(max_difference, 1e-3);
}

}  // namespace
}  // namespace tinyenc
