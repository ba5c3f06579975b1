// The fused PE kernels (kernels.h) against references written here in double precision from the
// formulas, and every SIMD kernel against the scalar one (the specification): bit for bit where
// they do the same float operations in the same order, else within bounds derived from float
// rounding (tests/support/float_tolerance.h).
//
// Every test runs once per ISA compiled into the binary; an ISA this CPU cannot run is skipped
// with a message naming it, so a machine without AVX-512 shows the avx512 cases as skipped.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/isa.h"
#include "engine/pe/attention_bias.h"
#include "engine/pe/kernel_table.h"
#include "engine/pe/kernels.h"
#include "engine/pe/rope.h"
#include "tests/support/float_tolerance.h"

namespace tinyenc {
namespace {

using testing::float_ulp;
using testing::kFloatRoundoff;

// Every kernel translation unit is built with -ffp-contract=off, so the SIMD kernels differ from
// the scalar specification only where they say so: LayerNorm statistics summed in float lanes
// (the specification sums in double) and V::fmadd (one rounding where the specification rounds
// twice). Elsewhere (embedding sums, the distance bias) every ISA does the same float operations
// in the same order: bit-identical results.
//
// A RoPE rotation x_a cos - x_b sin of inputs |x| <= 1 rounds two products and a sum, each by
// at most 2^-24 of a magnitude <= |x_a| + |x_b| <= 2; fusing one product removes one of those.
// Against the exact rotation with the same cos/sin, and SIMD against scalar, within:
constexpr double kRotationBound = 3 * kFloatRoundoff * 2.0;  // 3.6e-7

// LayerNorm of a float row against the exact (double) LayerNorm of that row: the normalisation
// rounds (x - mean), the product with 1/std and the gamma, beta step, each by at most an ulp of
// the row's scale (its largest |x_hat * gamma| + |beta|), and 1/std carries the roundings of the
// variance sum, the square root and the division into every output of the row in proportion.
// Four ulps of the row's scale cover them when the statistics are summed lane-parallel or in
// double, as every path here does (a float running sum over 768 terms, or a variance taken as
// E[x^2] - mean^2, would not). Every path also rounds the mean itself to float (2^-24 |mean|,
// twice for a float sum divided by d), an error 1/std magnifies: it dominates off centre.
double layer_norm_bound(double row_scale, double mean_over_stddev, double largest_gamma) {
  return 4 * float_ulp(row_scale) +
         2 * kFloatRoundoff * std::fabs(mean_over_stddev) * std::fabs(largest_gamma);
}

// The scale layer_norm_bound needs: the largest |x_hat * gamma| + |beta| of a row whose exact
// mean and 1/std are given.
double layer_norm_row_scale(const double* row, int64_t d, double mean, double inv_std,
                            const float* gamma, const float* beta) {
  double scale = 0.0;
  for (int64_t j = 0; j < d; ++j) {
    scale = std::max(scale, std::fabs((row[j] - mean) * inv_std * gamma[j]) + std::fabs(beta[j]));
  }
  return scale;
}

std::string isa_test_name(const ::testing::TestParamInfo<Isa>& info) {
  return std::string(isa_name(info.param));
}

class PeKernelsTest : public ::testing::TestWithParam<Isa> {
 protected:
  void SetUp() override {
    if (!isa_supported(GetParam())) {
      GTEST_SKIP() << "ISA '" << isa_name(GetParam())
                   << "' is compiled in but not supported by this CPU/OS";
    }
  }
  Isa isa() const { return GetParam(); }
};

std::vector<float> random_floats(std::mt19937& rng, int64_t count, float low, float high) {
  std::uniform_real_distribution<float> dist(low, high);
  std::vector<float> values(static_cast<size_t>(count));
  for (float& value : values) value = dist(rng);
  return values;
}

// A buffer whose data starts one float past the allocation, so SIMD loads are misaligned, and
// with one guard float after the end to catch writes past it.
class OffsetBuffer {
 public:
  static constexpr float kGuard = -12345.5f;
  explicit OffsetBuffer(int64_t size) : storage_(static_cast<size_t>(size) + 2, kGuard) {}
  OffsetBuffer(const std::vector<float>& values) : storage_(values.size() + 2, kGuard) {
    std::copy(values.begin(), values.end(), storage_.begin() + 1);
  }
  float* data() { return storage_.data() + 1; }
  const float* data() const { return storage_.data() + 1; }
  int64_t size() const { return static_cast<int64_t>(storage_.size()) - 2; }
  float operator[](int64_t i) const { return storage_[static_cast<size_t>(i) + 1]; }
  bool guards_intact() const { return storage_.front() == kGuard && storage_.back() == kGuard; }
  std::vector<float> values() const { return {storage_.begin() + 1, storage_.end() - 1}; }

 private:
  std::vector<float> storage_;
};

// max |a - b| / max(1, |b|): b is the scalar kernel's output.
double max_scaled_difference(const std::vector<float>& a, const std::vector<float>& b) {
  EXPECT_EQ(a.size(), b.size());
  double worst = 0.0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    const double difference = std::fabs(static_cast<double>(a[i]) - static_cast<double>(b[i]));
    worst = std::max(worst, difference / std::max(1.0, std::fabs(static_cast<double>(b[i]))));
  }
  return worst;
}

// ---------------------------------------------------------------------------------------------
// embed_tokens

struct EmbeddingCase {
  int64_t tokens;
  int64_t d_model;
  bool positions;           // a position table
  bool explicit_positions;  // RoBERTa-style ids (offset by padding_idx + 1) instead of 0, 1, ..
  bool token_types;         // a token-type table
  bool explicit_types;      // random type ids instead of all zeros
  bool layer_norm;
  float scale;
  float epsilon;
};

std::string describe(const EmbeddingCase& c) {
  return "tokens=" + std::to_string(c.tokens) + " d_model=" + std::to_string(c.d_model) +
         " positions=" + std::to_string(c.positions) + "/" + std::to_string(c.explicit_positions) +
         " types=" + std::to_string(c.token_types) + "/" + std::to_string(c.explicit_types) +
         " layer_norm=" + std::to_string(c.layer_norm) + " scale=" + std::to_string(c.scale) +
         " epsilon=" + std::to_string(c.epsilon);
}

std::vector<EmbeddingCase> embedding_cases() {
  std::vector<EmbeddingCase> cases;
  const int64_t widths[] = {1, 3, 7, 8, 15, 16, 17, 33, 100, 257, 768};
  int variant = 0;
  for (int64_t d : widths) {
    // Every combination of the optional terms, at a few token counts.
    for (int flags = 0; flags < 16; ++flags, ++variant) {
      EmbeddingCase c{};
      c.d_model = d;
      c.tokens = 1 + (variant * 37) % 90;
      c.positions = (flags & 1) != 0;
      c.explicit_positions = c.positions && (flags & 8) != 0;
      c.token_types = (flags & 2) != 0;
      c.explicit_types = c.token_types && (flags & 8) == 0;
      c.layer_norm = (flags & 4) != 0;
      c.scale = (flags & 8) != 0 ? std::sqrt(static_cast<float>(d)) : 1.0f;
      c.epsilon = (variant % 2 == 0) ? 1e-12f : 1e-5f;
      cases.push_back(c);
    }
  }
  // Long inputs (these take the OpenMP path: tokens * d_model >= 65536 floats).
  cases.push_back({2000, 768, true, true, true, true, true, 1.0f, 1e-12f});
  cases.push_back({1999, 33, true, false, false, false, true, 1.0f, 1e-5f});
  cases.push_back({1500, 100, true, false, true, false, false, 10.0f, 1e-5f});
  return cases;
}

// Inputs for one case; tables are misaligned by one float.
struct EmbeddingInputs {
  int64_t vocab = 0;
  std::vector<int32_t> token_ids;
  OffsetBuffer token_table{0};
  int64_t position_rows = 0;
  std::vector<int32_t> position_ids;
  OffsetBuffer position_table{0};
  int64_t type_rows = 0;
  std::vector<int32_t> type_ids;
  OffsetBuffer type_table{0};
  OffsetBuffer gamma{0};
  OffsetBuffer beta{0};

  EmbeddingArgs args(const EmbeddingCase& c, float* out) const {
    EmbeddingArgs a;
    a.tokens = c.tokens;
    a.d_model = c.d_model;
    a.token_ids = token_ids.data();
    a.token_table = token_table.data();
    a.vocab_size = vocab;
    a.scale = c.scale;
    if (c.positions) {
      a.position_ids = c.explicit_positions ? position_ids.data() : nullptr;
      a.position_table = position_table.data();
      a.position_rows = position_rows;
    }
    if (c.token_types) {
      a.token_type_ids = c.explicit_types ? type_ids.data() : nullptr;
      a.token_type_table = type_table.data();
      a.token_type_rows = type_rows;
    }
    if (c.layer_norm) {
      a.gamma = gamma.data();
      a.beta = beta.data();
    }
    a.epsilon = c.epsilon;
    a.out = out;
    return a;
  }
};

EmbeddingInputs make_embedding_inputs(const EmbeddingCase& c, uint32_t seed) {
  std::mt19937 rng(seed);
  EmbeddingInputs in;
  const int64_t d = c.d_model;
  in.vocab = 50;
  in.token_table = OffsetBuffer(random_floats(rng, in.vocab * d, -1.0f, 1.0f));
  std::uniform_int_distribution<int32_t> token(0, static_cast<int32_t>(in.vocab - 1));
  for (int64_t t = 0; t < c.tokens; ++t) in.token_ids.push_back(token(rng));
  // RoBERTa: padding_idx = 1, real tokens at positions 2, 3, ..; a padded tail points at row 1.
  in.position_rows = c.tokens + 2;
  in.position_table = OffsetBuffer(random_floats(rng, in.position_rows * d, -1.0f, 1.0f));
  const int64_t padded_from = c.tokens - c.tokens / 5;
  for (int64_t t = 0; t < c.tokens; ++t) {
    in.position_ids.push_back(static_cast<int32_t>(t < padded_from ? t + 2 : 1));
  }
  in.type_rows = 3;
  in.type_table = OffsetBuffer(random_floats(rng, in.type_rows * d, -1.0f, 1.0f));
  std::uniform_int_distribution<int32_t> type(0, static_cast<int32_t>(in.type_rows - 1));
  for (int64_t t = 0; t < c.tokens; ++t) in.type_ids.push_back(type(rng));
  in.gamma = OffsetBuffer(random_floats(rng, d, 0.5f, 1.5f));
  in.beta = OffsetBuffer(random_floats(rng, d, -0.5f, 0.5f));
  return in;
}

// The sum of the terms of row t in double; `magnitude` gets the sum of their absolute values.
std::vector<double> reference_sum_row(const EmbeddingCase& c, const EmbeddingInputs& in, int64_t t,
                                      std::vector<double>& magnitude) {
  const int64_t d = c.d_model;
  std::vector<double> row(static_cast<size_t>(d));
  magnitude.assign(static_cast<size_t>(d), 0.0);
  for (int64_t j = 0; j < d; ++j) {
    const double token = static_cast<double>(in.token_table[in.token_ids[t] * d + j]) * c.scale;
    double value = token;
    double size = std::fabs(token);
    if (c.positions) {
      const int64_t position = c.explicit_positions ? in.position_ids[t] : t;
      value += in.position_table[position * d + j];
      size += std::fabs(in.position_table[position * d + j]);
    }
    if (c.token_types) {
      const int64_t type = c.explicit_types ? in.type_ids[t] : 0;
      value += in.type_table[type * d + j];
      size += std::fabs(in.type_table[type * d + j]);
    }
    row[static_cast<size_t>(j)] = value;
    magnitude[static_cast<size_t>(j)] = size;
  }
  return row;
}

// Checks `out` against the double-precision reference; with `scalar` (the specification's output
// for the same inputs), also checks that `out` agrees with it.
void expect_matches_reference(const EmbeddingCase& c, const EmbeddingInputs& in,
                              const OffsetBuffer& out, const OffsetBuffer* scalar = nullptr) {
  const int64_t d = c.d_model;
  int failures = 0;
  std::vector<double> magnitude;
  if (scalar && !c.layer_norm) {
    // The same float operations in the same order on every ISA: identical bits.
    EXPECT_EQ(out.values(), scalar->values()) << "SIMD and scalar embedding sums differ";
  }
  for (int64_t t = 0; t < c.tokens && failures < 5; ++t) {
    const std::vector<double> row = reference_sum_row(c, in, t, magnitude);
    if (!c.layer_norm) {
      for (int64_t j = 0; j < d; ++j) {
        // Three float roundings (the product, two sums), each <= 2^-24 of the running magnitude,
        // which is at most the sum of the terms' magnitudes: within 4 * 2^-24 of that sum.
        const double tolerance = 4 * kFloatRoundoff * magnitude[static_cast<size_t>(j)] + 1e-30;
        const double got = out[t * d + j];
        if (std::fabs(got - row[static_cast<size_t>(j)]) > tolerance && failures++ < 5) {
          ADD_FAILURE() << "row " << t << " column " << j << ": got " << got << ", reference "
                        << row[static_cast<size_t>(j)];
        }
      }
      continue;
    }
    double mean = 0.0;
    for (double x : row) mean += x;
    mean /= static_cast<double>(d);
    double variance = 0.0;
    for (double x : row) variance += (x - mean) * (x - mean);
    variance /= static_cast<double>(d);
    const double inv_std = 1.0 / std::sqrt(variance + static_cast<double>(c.epsilon));
    const double largest = *std::max_element(magnitude.begin(), magnitude.end());
    const std::vector<float> gamma_values = in.gamma.values(), beta_values = in.beta.values();
    const double bound = layer_norm_bound(
        layer_norm_row_scale(row.data(), d, mean, inv_std, gamma_values.data(), beta_values.data()),
        mean * inv_std, testing::largest_magnitude(gamma_values.data(), d));
    for (int64_t j = 0; j < d; ++j) {
      const double gamma = in.gamma[j];
      const double expected = (row[static_cast<size_t>(j)] - mean) * inv_std * gamma + in.beta[j];
      // Against the exact sums the float row itself is off by three roundings per element
      // (<= 4 * 2^-24 of its largest term's magnitude), which shifts both x and the mean and
      // which 1/std magnifies when the row is nearly constant.
      const double tolerance = bound + std::fabs(gamma) * 16 * kFloatRoundoff * largest * inv_std;
      const double got = out[t * d + j];
      if (!(std::fabs(got - expected) <= tolerance) && failures++ < 5) {
        ADD_FAILURE() << "row " << t << " column " << j << ": got " << got << ", reference "
                      << expected << " (tolerance " << tolerance << ")";
      }
      // SIMD and scalar normalise the same float row, each within `bound` of its exact LayerNorm.
      if (scalar && !(std::fabs(got - (*scalar)[t * d + j]) <= 2 * bound) && failures++ < 5) {
        ADD_FAILURE() << "row " << t << " column " << j << ": got " << got << ", scalar "
                      << (*scalar)[t * d + j] << " (tolerance " << 2 * bound << ")";
      }
    }
  }
}

TEST_P(PeKernelsTest, EmbedTokensMatchesDoubleReferenceAndScalar) {
  uint32_t seed = 1;
  for (const EmbeddingCase& c : embedding_cases()) {
    SCOPED_TRACE(describe(c));
    const EmbeddingInputs in = make_embedding_inputs(c, seed++);
    OffsetBuffer out(c.tokens * c.d_model);
    embed_tokens(in.args(c, out.data()), isa());
    EXPECT_TRUE(out.guards_intact()) << "wrote outside the output";
    if (isa() != Isa::kScalar) {
      OffsetBuffer scalar(c.tokens * c.d_model);
      embed_tokens(in.args(c, scalar.data()), Isa::kScalar);
      expect_matches_reference(c, in, out, &scalar);
    } else {
      expect_matches_reference(c, in, out);
    }
    if (HasFailure()) return;
  }
}

// Embeds token t = row t of `table` [tokens, d] with LayerNorm (gamma, beta, epsilon) on `isa`
// and returns, per row, the largest difference from LayerNorm in double precision, also in units
// of layer_norm_bound (<= 1 passes).
struct RowError {
  double worst = 0.0;
  double worst_in_bounds = 0.0;
  double mean_over_stddev = 0.0;  // how far off centre the row is
};
std::vector<RowError> layer_norm_errors(const std::vector<float>& table, int64_t tokens, int64_t d,
                                        const std::vector<float>& gamma,
                                        const std::vector<float>& beta, float epsilon, Isa isa) {
  std::vector<int32_t> ids(static_cast<size_t>(tokens));
  for (int64_t t = 0; t < tokens; ++t) ids[static_cast<size_t>(t)] = static_cast<int32_t>(t);
  std::vector<float> out(static_cast<size_t>(tokens * d));
  EmbeddingArgs a;
  a.tokens = tokens;
  a.d_model = d;
  a.token_ids = ids.data();
  a.token_table = table.data();
  a.vocab_size = tokens;
  a.gamma = gamma.data();
  a.beta = beta.data();
  a.epsilon = epsilon;
  a.out = out.data();
  embed_tokens(a, isa);
  std::vector<RowError> errors(static_cast<size_t>(tokens));
  for (int64_t t = 0; t < tokens; ++t) {
    const float* row = table.data() + t * d;
    double mean = 0.0, variance = 0.0;
    for (int64_t j = 0; j < d; ++j) mean += row[j];
    mean /= static_cast<double>(d);
    for (int64_t j = 0; j < d; ++j) variance += (row[j] - mean) * (row[j] - mean);
    variance /= static_cast<double>(d);
    const double inv_std = 1.0 / std::sqrt(variance + epsilon);
    RowError& error = errors[static_cast<size_t>(t)];
    error.mean_over_stddev = mean * std::sqrt(1.0 / variance);
    const std::vector<double> exact_row(row, row + d);
    const double bound = layer_norm_bound(
        layer_norm_row_scale(exact_row.data(), d, mean, inv_std, gamma.data(), beta.data()),
        mean * inv_std, *std::max_element(gamma.begin(), gamma.end()));
    for (int64_t j = 0; j < d; ++j) {
      const double expected =
          (row[j] - mean) * inv_std * gamma[static_cast<size_t>(j)] + beta[static_cast<size_t>(j)];
      const double difference = std::fabs(out[static_cast<size_t>(t * d + j)] - expected);
      error.worst = std::max(error.worst, difference);
      error.worst_in_bounds = std::max(error.worst_in_bounds, difference / bound);
    }
  }
  return errors;
}

// LayerNorm at BERT-base width against the double reference within layer_norm_bound: four ulps
// of outputs below 4 (9.5e-7). Unit-scale rows, gamma in [0.5, 1.5], beta in [-0.5, 0.5].
// (Measured: at most half the bound, scalar, AVX2, and the AVX-512 and NEON orders emulated.)
TEST_P(PeKernelsTest, EmbedTokensLayerNormAccurateAtBertWidth) {
  const int64_t tokens = 64, d = 768;
  std::mt19937 rng(2024);
  const std::vector<float> table = random_floats(rng, tokens * d, -1.0f, 1.0f);
  const std::vector<float> gamma = random_floats(rng, d, 0.5f, 1.5f);
  const std::vector<float> beta = random_floats(rng, d, -0.5f, 0.5f);
  for (const RowError& error : layer_norm_errors(table, tokens, d, gamma, beta, 1e-12f, isa())) {
    EXPECT_LE(error.worst_in_bounds, 1.0) << "largest difference " << error.worst;
  }
}

// Rows from centred to off centre (mean up to ~3.5 standard deviations), where a variance taken as
// E[x^2] - mean^2 loses digits in proportion to (mean / stddev)^2: the fused LayerNorm must stay
// within layer_norm_bound of double precision, whose off-centre term (the float mean that every
// path subtracts) grows only with mean / stddev. (Measured: at most 0.6 of the bound, scalar,
// AVX2, and the AVX-512 and NEON orders emulated; E[x^2] - mean^2 exceeds it from mean / stddev
// = 2, by twice at 3.)
TEST_P(PeKernelsTest, EmbedTokensLayerNormAccurateOffCentre) {
  const int64_t tokens = 96, d = 768;
  std::mt19937 rng(7);
  std::vector<float> table = random_floats(rng, tokens * d, -1.0f, 1.0f);
  for (int64_t t = 0; t < tokens; ++t) {
    const float offset = 2.0f * static_cast<float>(t) / static_cast<float>(tokens);
    for (int64_t j = 0; j < d; ++j) table[static_cast<size_t>(t * d + j)] += offset;
  }
  const std::vector<float> gamma = random_floats(rng, d, 0.5f, 1.5f);
  const std::vector<float> beta = random_floats(rng, d, -0.5f, 0.5f);
  const std::vector<RowError> errors =
      layer_norm_errors(table, tokens, d, gamma, beta, 1e-5f, isa());
  for (size_t t = 0; t < errors.size(); ++t) {
    EXPECT_LE(errors[t].worst_in_bounds, 1.0)
        << "row " << t << ", mean / stddev " << errors[t].mean_over_stddev
        << ", largest difference " << errors[t].worst;
  }
}

// A hand-worked case: d_model = 2 where LayerNorm maps any row (a, b) with a != b to
// (-1, +1) or (+1, -1) (mean (a+b)/2, std |a-b|/2), before gamma and beta.
TEST_P(PeKernelsTest, EmbedTokensHandWorkedLayerNorm) {
  const std::vector<int32_t> ids = {1, 0};
  const float table[] = {3.0f, 1.0f, -2.0f, 6.0f};  // rows (3, 1) and (-2, 6)
  const float positions[] = {0.5f, 0.5f, 10.0f, 2.0f};
  const float gamma[] = {2.0f, 3.0f};
  const float beta[] = {0.25f, -0.25f};
  float out[4] = {};
  EmbeddingArgs a;
  a.tokens = 2;
  a.d_model = 2;
  a.token_ids = ids.data();
  a.token_table = table;
  a.vocab_size = 2;
  a.scale = 2.0f;
  a.position_table = positions;
  a.position_rows = 2;
  a.gamma = gamma;
  a.beta = beta;
  a.epsilon = 0.0f;
  a.out = out;
  embed_tokens(a, isa());
  // Token 0: 2 * (-2, 6) + (0.5, 0.5) = (-3.5, 12.5) -> (-1, 1) -> (-2 + 0.25, 3 - 0.25).
  // Token 1: 2 * (3, 1) + (10, 2) = (16, 4) -> (1, -1) -> (2 + 0.25, -3 - 0.25).
  // Token 0 is exact in float (std 8); token 1 is not (1/6 rounds), hence within 4 ulps.
  EXPECT_FLOAT_EQ(out[0], -1.75f);
  EXPECT_FLOAT_EQ(out[1], 2.75f);
  EXPECT_FLOAT_EQ(out[2], 2.25f);
  EXPECT_FLOAT_EQ(out[3], -3.25f);

  // Without LayerNorm the sums come out as they are, exact (halves and small integers);
  // epsilon only matters with gamma.
  a.gamma = nullptr;
  a.beta = nullptr;
  embed_tokens(a, isa());
  EXPECT_EQ(out[0], -3.5f);
  EXPECT_EQ(out[1], 12.5f);
  EXPECT_EQ(out[2], 16.0f);
  EXPECT_EQ(out[3], 4.0f);
}

// Outputs of 32 MiB and more are written with non-temporal stores when their rows are aligned for
// them (detail::stream_embedding_output): the values must be those of the ordinary stores, for an
// aligned and a misaligned output, with and without position and token-type rows.
TEST_P(PeKernelsTest, EmbedTokensLargeOutputWrittenAroundTheCaches) {
  const int64_t d = 1024, tokens = 8192, vocab = 64, positions = 512;  // 32 MiB of output
  std::mt19937 rng(21);
  const std::vector<float> token_table = random_floats(rng, vocab * d, -1.0f, 1.0f);
  const std::vector<float> position_table = random_floats(rng, positions * d, -1.0f, 1.0f);
  const std::vector<float> type_table = random_floats(rng, 2 * d, -1.0f, 1.0f);
  std::vector<int32_t> ids(tokens), position_ids(tokens), type_ids(tokens);
  for (int64_t t = 0; t < tokens; ++t) {
    ids[t] = static_cast<int32_t>(rng() % vocab);
    position_ids[t] = static_cast<int32_t>(t % positions);
    type_ids[t] = static_cast<int32_t>((t / 7) % 2);
  }
  // 64-byte aligned views into plain vectors, with room for a one-float offset.
  std::vector<float> out_storage(static_cast<size_t>(tokens * d + 32));
  std::vector<float> expected_storage(out_storage.size());
  const auto aligned = [](std::vector<float>& storage) {
    const uintptr_t address = reinterpret_cast<uintptr_t>(storage.data());
    return reinterpret_cast<float*>((address + 63) & ~uintptr_t{63});
  };
  for (const bool with_rows : {true, false}) {
    for (const int64_t offset : {0, 1}) {
      EmbeddingArgs a;
      a.tokens = tokens;
      a.d_model = d;
      a.token_ids = ids.data();
      a.token_table = token_table.data();
      a.vocab_size = vocab;
      a.scale = 2.0f;
      if (with_rows) {
        a.position_ids = position_ids.data();
        a.position_table = position_table.data();
        a.position_rows = positions;
        a.token_type_ids = type_ids.data();
        a.token_type_table = type_table.data();
        a.token_type_rows = 2;
      }
      ASSERT_TRUE(detail::stream_embedding_output(a));
      a.out = aligned(out_storage) + offset;
      embed_tokens(a, isa());
      EmbeddingArgs reference = a;
      reference.out = aligned(expected_storage) + offset;
      embed_tokens(reference, Isa::kScalar);
      double worst = 0;
      for (int64_t i = 0; i < tokens * d; ++i) {
        worst = std::max(worst, static_cast<double>(std::abs(a.out[i] - reference.out[i])));
      }
      // No LayerNorm: the same float operations in the same order as the scalar kernel (and as
      // the float expression below, also built without contraction): identical bits.
      EXPECT_EQ(worst, 0.0) << "rows " << with_rows << " offset " << offset;
      for (const int64_t t : {int64_t{0}, int64_t{4097}, tokens - 1}) {
        for (const int64_t j : {int64_t{0}, int64_t{517}, d - 1}) {
          float value = token_table[ids[t] * d + j] * 2.0f;
          if (with_rows) {
            value += position_table[position_ids[t] * d + j];
            value += type_table[type_ids[t] * d + j];
          }
          EXPECT_EQ(a.out[t * d + j], value) << "token " << t << " column " << j;
        }
      }
    }
  }
}

TEST_P(PeKernelsTest, EmbedTokensRejectsBadIds) {
  const int64_t d = 5;
  std::vector<float> table(4 * d, 1.0f), positions(3 * d, 0.5f), types(2 * d, 0.25f);
  std::vector<float> gamma(d, 1.0f), beta(d, 0.0f), out(3 * d);
  std::vector<int32_t> ids = {0, 3, 2};
  std::vector<int32_t> position_ids = {0, 1, 2};
  std::vector<int32_t> type_ids = {0, 1, 1};
  auto make = [&] {
    EmbeddingArgs a;
    a.tokens = 3;
    a.d_model = d;
    a.token_ids = ids.data();
    a.token_table = table.data();
    a.vocab_size = 4;
    a.position_ids = position_ids.data();
    a.position_table = positions.data();
    a.position_rows = 3;
    a.token_type_ids = type_ids.data();
    a.token_type_table = types.data();
    a.token_type_rows = 2;
    a.gamma = gamma.data();
    a.beta = beta.data();
    a.out = out.data();
    return a;
  };
  EXPECT_NO_THROW(embed_tokens(make(), isa()));

  ids[1] = 4;  // == vocab_size
  EXPECT_THROW(embed_tokens(make(), isa()), std::out_of_range);
  ids[1] = -1;
  EXPECT_THROW(embed_tokens(make(), isa()), std::out_of_range);
  ids[1] = 3;

  position_ids[2] = 3;  // == position_rows
  EXPECT_THROW(embed_tokens(make(), isa()), std::out_of_range);
  position_ids[2] = -2;
  EXPECT_THROW(embed_tokens(make(), isa()), std::out_of_range);
  position_ids[2] = 2;

  type_ids[0] = 2;  // == token_type_rows
  EXPECT_THROW(embed_tokens(make(), isa()), std::out_of_range);
  type_ids[0] = -1;
  EXPECT_THROW(embed_tokens(make(), isa()), std::out_of_range);
  type_ids[0] = 0;

  // Implicit positions 0, 1, 2 need three rows.
  EmbeddingArgs implicit = make();
  implicit.position_ids = nullptr;
  EXPECT_NO_THROW(embed_tokens(implicit, isa()));
  implicit.position_rows = 2;
  EXPECT_THROW(embed_tokens(implicit, isa()), std::out_of_range);

  // The message names the offending id.
  ids[2] = 7;
  try {
    embed_tokens(make(), isa());
    ADD_FAILURE() << "no exception for token id 7";
  } catch (const std::out_of_range& error) {
    EXPECT_NE(std::string(error.what()).find("token_ids[2] = 7"), std::string::npos)
        << error.what();
  }
  ids[2] = 2;

  EmbeddingArgs no_beta = make();
  no_beta.beta = nullptr;
  EXPECT_THROW(embed_tokens(no_beta, isa()), std::invalid_argument);
  EmbeddingArgs no_gamma = make();
  no_gamma.gamma = nullptr;
  EXPECT_THROW(embed_tokens(no_gamma, isa()), std::invalid_argument);
  EmbeddingArgs no_width = make();
  no_width.d_model = 0;
  EXPECT_THROW(embed_tokens(no_width, isa()), std::invalid_argument);
}

// ---------------------------------------------------------------------------------------------
// rotate_queries_keys

struct RopeCase {
  int64_t tokens;
  int64_t heads;
  int64_t head_dim;
  int64_t rotary_dim;
  bool fused_qkv;  // q and k inside one [tokens, 3 * heads * head_dim] buffer
  bool with_k;
  bool explicit_positions;
  double theta;
};

std::string describe(const RopeCase& c, RopePairing pairing) {
  return std::string(rope_pairing_name(pairing)) + " tokens=" + std::to_string(c.tokens) +
         " heads=" + std::to_string(c.heads) + " head_dim=" + std::to_string(c.head_dim) +
         " rotary_dim=" + std::to_string(c.rotary_dim) + " fused=" + std::to_string(c.fused_qkv) +
         " k=" + std::to_string(c.with_k) + " ids=" + std::to_string(c.explicit_positions) +
         " theta=" + std::to_string(c.theta);
}

std::vector<RopeCase> rope_cases() {
  return {
      {1, 1, 2, 2, false, false, false, 10000.0},
      {5, 2, 8, 8, false, true, false, 10000.0},
      {7, 3, 6, 4, false, true, true, 10000.0},
      {9, 4, 16, 16, true, true, false, 10000.0},
      {9, 4, 16, 16, true, false, true, 10000.0},
      {13, 2, 24, 8, true, true, true, 10000.0},
      {11, 4, 34, 34, false, true, true, 10000.0},  // rotary_dim / 2 = 17: odd tails
      {17, 3, 18, 10, true, false, false, 500000.0},
      {33, 12, 64, 64, true, true, true, 10000.0},
      {21, 8, 64, 32, false, true, false, 160000.0},  // partial rotary (rotary_pct 0.5)
      {19, 2, 96, 96, true, true, true, 10000.0},
      {300, 16, 128, 128, true, true, true, 10000.0},  // large enough for the OpenMP path
      {257, 4, 80, 20, false, false, true, 10000.0},
  };
}

struct RopeInputs {
  int64_t row;  // floats per token
  int64_t q_offset;
  int64_t k_offset;
  OffsetBuffer buffer{0};      // q (and k) live here
  OffsetBuffer separate_k{0};  // k when not fused
  std::vector<int32_t> positions;
  RopeTable table;

  RopeInputs(const RopeCase& c, uint32_t seed) : table(c.rotary_dim, c.theta) {
    std::mt19937 rng(seed);
    const int64_t width = c.heads * c.head_dim;
    row = c.fused_qkv ? 3 * width : width;
    q_offset = 0;
    k_offset = c.fused_qkv ? width : 0;
    buffer = OffsetBuffer(random_floats(rng, c.tokens * row, -1.0f, 1.0f));
    separate_k = OffsetBuffer(random_floats(rng, c.tokens * row, -1.0f, 1.0f));
    std::uniform_int_distribution<int32_t> position(0, 3000);
    for (int64_t t = 0; t < c.tokens; ++t) {
      positions.push_back(c.explicit_positions ? position(rng) : static_cast<int32_t>(t));
    }
    table.reserve(*std::max_element(positions.begin(), positions.end()) + 1);
  }

  // Arguments for rotating `q_data` (and the k that goes with it, if any).
  RopeArgs args(const RopeCase& c, RopePairing pairing, float* q_data, float* k_data) const {
    RopeArgs a;
    a.tokens = c.tokens;
    a.heads = c.heads;
    a.head_dim = c.head_dim;
    a.rotary_dim = c.rotary_dim;
    a.pairing = pairing;
    a.q = q_data + q_offset;
    a.q_stride = row;
    if (c.with_k) {
      a.k = c.fused_qkv ? q_data + k_offset : k_data;
      a.k_stride = row;
    }
    a.position_ids = c.explicit_positions ? positions.data() : nullptr;
    a.cos = table.cos();
    a.sin = table.sin();
    a.table_positions = table.positions();
    return a;
  }
};

// The pair (a, b) of rotation i in a head, by pairing.
std::pair<int64_t, int64_t> pair_of(RopePairing pairing, int64_t i, int64_t rotary_dim) {
  if (pairing == RopePairing::kHalf) return {i, i + rotary_dim / 2};
  return {2 * i, 2 * i + 1};
}

// Rotates one head in double. cos/sin either from the float table (`table` non-null) or from
// the formula: angle = pos * theta^(-2i / rotary_dim).
void reference_rotate_head(const float* in, double* out, int64_t head_dim, int64_t rotary_dim,
                           RopePairing pairing, int64_t position, double theta,
                           const RopeTable* table) {
  for (int64_t j = 0; j < head_dim; ++j) out[j] = in[j];
  const int64_t half = rotary_dim / 2;
  for (int64_t i = 0; i < half; ++i) {
    double c, s;
    if (table) {
      c = table->cos()[position * half + i];
      s = table->sin()[position * half + i];
    } else {
      const double angle =
          static_cast<double>(position) *
          std::pow(theta, -2.0 * static_cast<double>(i) / static_cast<double>(rotary_dim));
      c = std::cos(angle);
      s = std::sin(angle);
    }
    const auto [a, b] = pair_of(pairing, i, rotary_dim);
    const double xa = in[a];
    const double xb = in[b];
    out[a] = xa * c - xb * s;
    out[b] = xb * c + xa * s;
  }
}

// Compares a rotated buffer with the reference rotation of the original one. Rotated dimensions
// must agree within tolerance(position); everything else (unrotated tail, v, padding) must be
// bit-identical to the original.
template <class Tolerance>
void expect_rotation(const RopeCase& c, RopePairing pairing, const RopeInputs& in,
                     const std::vector<float>& original, const std::vector<float>& rotated,
                     int64_t offset, const RopeTable* table, Tolerance tolerance,
                     const char* what) {
  std::vector<double> head(static_cast<size_t>(c.head_dim));
  int failures = 0;
  for (int64_t t = 0; t < c.tokens; ++t) {
    const int64_t position = in.positions[static_cast<size_t>(t)];
    for (int64_t h = 0; h < c.heads; ++h) {
      const int64_t base = t * in.row + offset + h * c.head_dim;
      reference_rotate_head(original.data() + base, head.data(), c.head_dim, c.rotary_dim, pairing,
                            position, c.theta, table);
      for (int64_t j = 0; j < c.head_dim; ++j) {
        const float got = rotated[static_cast<size_t>(base + j)];
        if (j >= c.rotary_dim) {
          if (got != original[static_cast<size_t>(base + j)] && failures++ < 5) {
            ADD_FAILURE() << what << ": token " << t << " head " << h << " dim " << j
                          << " is beyond rotary_dim but changed";
          }
          continue;
        }
        const double allowed = tolerance(position);
        if (!(std::fabs(got - head[static_cast<size_t>(j)]) <= allowed) && failures++ < 5) {
          ADD_FAILURE() << what << ": token " << t << " (position " << position << ") head " << h
                        << " dim " << j << ": got " << got << ", reference "
                        << head[static_cast<size_t>(j)] << " (tolerance " << allowed << ")";
        }
      }
    }
  }
}

// Everything in `after` outside the q (and k) heads equals `before` bit for bit.
void expect_outside_heads_untouched(const RopeCase& c, const RopeInputs& in,
                                    const std::vector<float>& before,
                                    const std::vector<float>& after, bool k_in_buffer) {
  const int64_t width = c.heads * c.head_dim;
  for (int64_t t = 0; t < c.tokens; ++t) {
    for (int64_t j = 0; j < in.row; ++j) {
      const bool in_q = j >= in.q_offset && j < in.q_offset + width;
      const bool in_k = k_in_buffer && j >= in.k_offset && j < in.k_offset + width;
      if (in_q || in_k) continue;
      const size_t index = static_cast<size_t>(t * in.row + j);
      if (before[index] != after[index]) {
        ADD_FAILURE() << "token " << t << " element " << j << " outside the rotated heads changed";
        return;
      }
    }
  }
}

TEST_P(PeKernelsTest, RotateQueriesKeysMatchesReferenceAndScalar) {
  uint32_t seed = 100;
  for (RopePairing pairing : {RopePairing::kHalf, RopePairing::kInterleaved}) {
    for (const RopeCase& c : rope_cases()) {
      SCOPED_TRACE(describe(c, pairing));
      const RopeInputs in(c, seed++);
      OffsetBuffer q = in.buffer;
      OffsetBuffer k = in.separate_k;
      rotate_queries_keys(in.args(c, pairing, q.data(), k.data()), isa());
      EXPECT_TRUE(q.guards_intact() && k.guards_intact()) << "wrote outside the buffers";
      const std::vector<float> q_before = in.buffer.values(), q_after = q.values();
      const std::vector<float> k_before = in.separate_k.values(), k_after = k.values();

      // 1. Against the rotation in double with the table's own cos/sin: only the rotation's
      //    float rounding remains (|x| <= 1, two products and a sum).
      auto table_tolerance = [](int64_t) { return kRotationBound; };
      expect_rotation(c, pairing, in, q_before, q_after, in.q_offset, &in.table, table_tolerance,
                      "q vs table reference");
      // 2. Against the math with angles in double. inv_freq = e^-t, t = ln(theta) 2i / d, is off
      //    by about 2^-24 (t + 2) relative (the exponent's rounding scaled by t, powf and the
      //    reciprocal), and the table rounds pos * inv_freq to float32 (as Hugging Face does):
      //    an angle error up to pos * 2^-24 e^-t (t + 3) <= 3 * 2^-24 * pos, which moves a pair
      //    with |x| <= 1 by sqrt(2) times that: 2.5e-7 per position. Plus the table's cos/sin
      //    and the rotation's own roundings (below 1e-6).
      auto math_tolerance = [](int64_t position) {
        return 2e-6 + 4e-7 * static_cast<double>(position);
      };
      expect_rotation(c, pairing, in, q_before, q_after, in.q_offset, nullptr, math_tolerance,
                      "q vs formula");
      if (c.with_k) {
        if (c.fused_qkv) {
          expect_rotation(c, pairing, in, q_before, q_after, in.k_offset, &in.table,
                          table_tolerance, "fused k vs table reference");
        } else {
          expect_rotation(c, pairing, in, k_before, k_after, in.k_offset, &in.table,
                          table_tolerance, "k vs table reference");
        }
      } else {
        EXPECT_EQ(k_before, k_after);
      }
      expect_outside_heads_untouched(c, in, q_before, q_after, c.with_k && c.fused_qkv);

      if (isa() != Isa::kScalar) {
        // The SIMD rotation fuses one multiply-add: kRotationBound covers it.
        OffsetBuffer scalar_q = in.buffer;
        OffsetBuffer scalar_k = in.separate_k;
        rotate_queries_keys(in.args(c, pairing, scalar_q.data(), scalar_k.data()), Isa::kScalar);
        EXPECT_LE(max_scaled_difference(q_after, scalar_q.values()), kRotationBound);
        EXPECT_LE(max_scaled_difference(k_after, scalar_k.values()), kRotationBound);
      }
      if (HasFailure()) return;
    }
  }
}

// A hand-worked rotation: head_dim 4 at position 1 with theta 100^2 = 10000 and rotary_dim 4:
// inv_freq = (1, 10000^-0.5 = 0.01), so angles (1, 0.01). Against cos/sin in double, 1e-6 covers
// the table's float cos/sin (2^-24 each, times |x| <= 4: 4.8e-7 for a product pair) and the
// rotation's roundings at magnitudes below 8 (two products and a sum: 4.8e-7); a swapped pair or
// a wrong angle is off by more than 1e-2.
TEST_P(PeKernelsTest, RotateQueriesKeysHandWorked) {
  RopeTable table(4, 10000.0);
  table.reserve(2);
  const double c0 = std::cos(1.0), s0 = std::sin(1.0), c1 = std::cos(0.01), s1 = std::sin(0.01);
  {
    // Half pairing: (x0, x2) by angle 1, (x1, x3) by angle 0.01. Token 0 (position 0) stays.
    float q[8] = {1, 2, 3, 4, 1, 2, 3, 4};
    RopeArgs a;
    a.tokens = 2;
    a.heads = 1;
    a.head_dim = 4;
    a.rotary_dim = 4;
    a.pairing = RopePairing::kHalf;
    a.q = q;
    a.q_stride = 4;
    a.cos = table.cos();
    a.sin = table.sin();
    a.table_positions = table.positions();
    rotate_queries_keys(a, isa());
    EXPECT_EQ(q[0], 1.0f);
    EXPECT_EQ(q[1], 2.0f);
    EXPECT_EQ(q[2], 3.0f);
    EXPECT_EQ(q[3], 4.0f);
    EXPECT_NEAR(q[4], 1 * c0 - 3 * s0, 1e-6);
    EXPECT_NEAR(q[5], 2 * c1 - 4 * s1, 1e-6);
    EXPECT_NEAR(q[6], 3 * c0 + 1 * s0, 1e-6);
    EXPECT_NEAR(q[7], 4 * c1 + 2 * s1, 1e-6);
  }
  {
    // Interleaved pairing: (x0, x1) by angle 1, (x2, x3) by angle 0.01.
    float q[4] = {1, 2, 3, 4};
    const int32_t position = 1;
    RopeArgs a;
    a.tokens = 1;
    a.heads = 1;
    a.head_dim = 4;
    a.rotary_dim = 4;
    a.pairing = RopePairing::kInterleaved;
    a.q = q;
    a.q_stride = 4;
    a.position_ids = &position;
    a.cos = table.cos();
    a.sin = table.sin();
    a.table_positions = table.positions();
    rotate_queries_keys(a, isa());
    EXPECT_NEAR(q[0], 1 * c0 - 2 * s0, 1e-6);
    EXPECT_NEAR(q[1], 2 * c0 + 1 * s0, 1e-6);
    EXPECT_NEAR(q[2], 3 * c1 - 4 * s1, 1e-6);
    EXPECT_NEAR(q[3], 4 * c1 + 3 * s1, 1e-6);
  }
}

// <R(m) q, R(n) k> depends only on m - n: rotate q to m and k to n, then both shifted by s.
TEST_P(PeKernelsTest, RopeScoresDependOnlyOnRelativePosition) {
  const int64_t head_dim = 64;
  std::mt19937 rng(7);
  const std::vector<float> q = random_floats(rng, head_dim, -1.0f, 1.0f);
  const std::vector<float> k = random_floats(rng, head_dim, -1.0f, 1.0f);
  double q_norm = 0.0, k_norm = 0.0;
  for (int64_t j = 0; j < head_dim; ++j) {
    q_norm += q[static_cast<size_t>(j)] * q[static_cast<size_t>(j)];
    k_norm += k[static_cast<size_t>(j)] * k[static_cast<size_t>(j)];
  }
  const double scale = std::sqrt(q_norm * k_norm);
  RopeTable table(head_dim, 10000.0);
  table.reserve(1200);
  const int32_t pairs[][3] = {{0, 0, 500},  {3, 10, 1},   {10, 3, 100}, {63, 0, 1000},
                              {5, 40, 777}, {17, 17, 64}, {0, 1, 1100}};
  for (RopePairing pairing : {RopePairing::kHalf, RopePairing::kInterleaved}) {
    for (const auto& p : pairs) {
      const int32_t m = p[0], n = p[1], s = p[2];
      SCOPED_TRACE(std::string(rope_pairing_name(pairing)) + " m=" + std::to_string(m) +
                   " n=" + std::to_string(n) + " s=" + std::to_string(s));
      // Rows: q@m, k@n, q@(m+s), k@(n+s).
      std::vector<float> rows;
      for (int r = 0; r < 4; ++r)
        rows.insert(rows.end(), r % 2 ? k.begin() : q.begin(), r % 2 ? k.end() : q.end());
      const int32_t positions[] = {m, n, m + s, n + s};
      RopeArgs a;
      a.tokens = 4;
      a.heads = 1;
      a.head_dim = head_dim;
      a.rotary_dim = head_dim;
      a.pairing = pairing;
      a.q = rows.data();
      a.q_stride = head_dim;
      a.position_ids = positions;
      a.cos = table.cos();
      a.sin = table.sin();
      a.table_positions = table.positions();
      rotate_queries_keys(a, isa());
      auto dot = [&](int first, int second) {
        double sum = 0.0;
        for (int64_t j = 0; j < head_dim; ++j) {
          sum += static_cast<double>(rows[static_cast<size_t>(first * head_dim + j)]) *
                 rows[static_cast<size_t>(second * head_dim + j)];
        }
        return sum;
      };
      const double near = dot(0, 1), far = dot(2, 3);
      // Not exact: the table rounds each angle pos * inv_freq to float (up to 3 * 2^-24 * pos
      // rad, see RotateQueriesKeysMatchesReferenceAndScalar: 2e-4 at position 1100 for the
      // fastest frequencies), so the far pair turns by slightly other angles than the near one.
      // Those errors differ in sign from pair to pair and shrink with the frequency: measured,
      // 2e-6 of |q| |k| (the same on every ISA, the table is), against 1e-4 allowed; a position
      // off by one typically moves the dot product by 2e-2 of |q| |k|.
      EXPECT_NEAR(near, far, 1e-4 * scale);
      // And it is a real function of m - n: the unrotated dot product differs unless m == n.
      double plain = 0.0;
      for (int64_t j = 0; j < head_dim; ++j) {
        plain += static_cast<double>(q[static_cast<size_t>(j)]) * k[static_cast<size_t>(j)];
      }
      if (m == n) {
        // Both rotated by the same table angles: only the rotations' rounding, kRotationBound
        // per element, which moves a 64-term dot product of |x| <= 1 by at most
        // 2 * 64 * 3.6e-7 = 4.6e-5, about 2e-6 of |q| |k| (~21 here).
        EXPECT_NEAR(near, plain, 1e-5 * scale);
      } else {
        EXPECT_GT(std::fabs(near - plain), 1e-3 * scale);
      }
    }
  }
}

TEST_P(PeKernelsTest, RotateQueriesKeysRejectsBadArguments) {
  RopeTable table(8, 10000.0);
  table.reserve(4);
  std::vector<float> q(3 * 16, 0.5f);
  std::vector<int32_t> positions = {0, 1, 2};
  auto make = [&] {
    RopeArgs a;
    a.tokens = 3;
    a.heads = 2;
    a.head_dim = 8;
    a.rotary_dim = 8;
    a.q = q.data();
    a.q_stride = 16;
    a.position_ids = positions.data();
    a.cos = table.cos();
    a.sin = table.sin();
    a.table_positions = 4;
    return a;
  };
  EXPECT_NO_THROW(rotate_queries_keys(make(), isa()));
  positions[1] = 4;
  EXPECT_THROW(rotate_queries_keys(make(), isa()), std::out_of_range);
  positions[1] = -1;
  EXPECT_THROW(rotate_queries_keys(make(), isa()), std::out_of_range);
  positions[1] = 1;

  RopeArgs implicit = make();
  implicit.position_ids = nullptr;
  implicit.table_positions = 2;  // 3 tokens need positions 0, 1, 2
  EXPECT_THROW(rotate_queries_keys(implicit, isa()), std::out_of_range);

  RopeArgs odd = make();
  odd.rotary_dim = 7;
  EXPECT_THROW(rotate_queries_keys(odd, isa()), std::invalid_argument);
  RopeArgs too_wide = make();
  too_wide.rotary_dim = 10;
  EXPECT_THROW(rotate_queries_keys(too_wide, isa()), std::invalid_argument);
  RopeArgs narrow = make();
  narrow.q_stride = 15;
  EXPECT_THROW(rotate_queries_keys(narrow, isa()), std::invalid_argument);
  RopeArgs narrow_k = make();
  narrow_k.k = q.data();
  narrow_k.k_stride = 8;
  EXPECT_THROW(rotate_queries_keys(narrow_k, isa()), std::invalid_argument);
  RopeArgs no_table = make();
  no_table.cos = nullptr;
  EXPECT_THROW(rotate_queries_keys(no_table, isa()), std::invalid_argument);
}

// ---------------------------------------------------------------------------------------------
// add_distance_bias

struct BiasCase {
  int64_t batch, heads, queries, keys;
};

std::vector<BiasCase> bias_cases() {
  return {{1, 1, 1, 1},  {2, 3, 5, 7},  {3, 4, 17, 9},    {1, 12, 33, 40},
          {2, 2, 9, 31}, {1, 6, 64, 1}, {2, 8, 128, 128}, {1, 5, 3, 250}};
}

std::string describe(const BiasCase& c) {
  return "batch=" + std::to_string(c.batch) + " heads=" + std::to_string(c.heads) +
         " queries=" + std::to_string(c.queries) + " keys=" + std::to_string(c.keys);
}

// Runs the kernel on random scores and checks scores[b,h,i,j] == before + expected(h, i, j)
// (one float addition: exact), and that the scalar kernel gives identical bits.
template <class Expected>
void check_distance_bias(Isa isa, const BiasCase& c, const std::vector<float>& distance_bias,
                         Expected expected, uint32_t seed, int64_t table_queries = 0,
                         int64_t table_keys = 0) {
  std::mt19937 rng(seed);
  const int64_t count = c.batch * c.heads * c.queries * c.keys;
  const OffsetBuffer before(random_floats(rng, count, -3.0f, 3.0f));
  const OffsetBuffer bias(distance_bias);
  OffsetBuffer scores = before;
  DistanceBiasArgs a;
  a.scores = scores.data();
  a.batch = c.batch;
  a.heads = c.heads;
  a.queries = c.queries;
  a.keys = c.keys;
  a.distance_bias = bias.data();
  a.table_queries = table_queries;
  a.table_keys = table_keys;
  add_distance_bias(a, isa);
  EXPECT_TRUE(scores.guards_intact());
  int failures = 0;
  for (int64_t b = 0; b < c.batch; ++b) {
    for (int64_t h = 0; h < c.heads; ++h) {
      for (int64_t i = 0; i < c.queries; ++i) {
        for (int64_t j = 0; j < c.keys; ++j) {
          const int64_t index = ((b * c.heads + h) * c.queries + i) * c.keys + j;
          const float want = before[index] + expected(h, i, j);
          if (scores[index] != want && failures++ < 5) {
            ADD_FAILURE() << "b=" << b << " h=" << h << " i=" << i << " j=" << j << ": got "
                          << scores[index] << ", expected " << want;
          }
        }
      }
    }
  }
  if (isa != Isa::kScalar) {
    OffsetBuffer scalar = before;
    a.scores = scalar.data();
    add_distance_bias(a, Isa::kScalar);
    EXPECT_EQ(scalar.values(), scores.values());
  }
}

TEST_P(PeKernelsTest, AddDistanceBiasMatchesNaiveLoop) {
  uint32_t seed = 300;
  for (const BiasCase& c : bias_cases()) {
    SCOPED_TRACE(describe(c));
    std::mt19937 rng(seed);
    const int64_t span = c.queries + c.keys - 1;
    const std::vector<float> bias = random_floats(rng, c.heads * span, -2.0f, 2.0f);
    check_distance_bias(
        isa(), c, bias,
        [&](int64_t h, int64_t i, int64_t j) {
          return bias[static_cast<size_t>(h * span + j - i + c.queries - 1)];
        },
        seed++);
  }
}

TEST_P(PeKernelsTest, AddDistanceBiasAlibi) {
  uint32_t seed = 400;
  for (const BiasCase& c : bias_cases()) {
    SCOPED_TRACE(describe(c));
    const std::vector<float> slopes = alibi_slopes(c.heads);
    // The bias is -m_h * |j - i|, independent of how alibi_distance_bias lays out its rows.
    check_distance_bias(
        isa(), c, alibi_distance_bias(slopes, c.queries, c.keys),
        [&](int64_t h, int64_t i, int64_t j) {
          return -slopes[static_cast<size_t>(h)] * static_cast<float>(std::abs(j - i));
        },
        seed++);
  }
}

// A table built once for the longest sequence of a packed batch serves its shorter runs.
TEST_P(PeKernelsTest, AddDistanceBiasFromALongerTable) {
  uint32_t seed = 450;
  for (const BiasCase& c : bias_cases()) {
    SCOPED_TRACE(describe(c));
    const int64_t longest = std::max(c.queries, c.keys) + 7;
    const std::vector<float> slopes = alibi_slopes(c.heads);
    check_distance_bias(
        isa(), c, alibi_distance_bias(slopes, longest, longest),
        [&](int64_t h, int64_t i, int64_t j) {
          return -slopes[static_cast<size_t>(h)] * static_cast<float>(std::abs(j - i));
        },
        seed++, longest, longest);
  }
  DistanceBiasArgs shorter;
  std::vector<float> scores(4), bias(3);
  shorter.scores = scores.data();
  shorter.batch = shorter.heads = 1;
  shorter.queries = shorter.keys = 2;
  shorter.distance_bias = bias.data();
  shorter.table_queries = shorter.table_keys = 1;  // a table shorter than the scores
  EXPECT_THROW(add_distance_bias(shorter, isa()), std::invalid_argument);
}

TEST_P(PeKernelsTest, AddDistanceBiasT5Relative) {
  uint32_t seed = 500;
  for (const RelativeParams params : {RelativeParams{32, 128}, RelativeParams{8, 20}}) {
    for (const BiasCase& c : bias_cases()) {
      SCOPED_TRACE(describe(c) + " num_buckets=" + std::to_string(params.num_buckets));
      std::mt19937 rng(seed);
      // A learned [num_buckets, heads] table.
      const std::vector<float> table =
          random_floats(rng, params.num_buckets * c.heads, -1.0f, 1.0f);
      check_distance_bias(
          isa(), c, relative_distance_bias(table.data(), c.heads, params, c.queries, c.keys),
          [&](int64_t h, int64_t i, int64_t j) {
            const int64_t bucket = t5_relative_bucket(j - i, params);
            return table[static_cast<size_t>(bucket * c.heads + h)];
          },
          seed++);
    }
  }
}

TEST_P(PeKernelsTest, AddDistanceBiasRejectsBadArguments) {
  std::vector<float> scores(12), bias(8);  // 2 heads x (2 + 3 - 1) distances
  DistanceBiasArgs a;
  a.scores = scores.data();
  a.batch = 1;
  a.heads = 2;
  a.queries = 2;
  a.keys = 3;
  a.distance_bias = bias.data();
  EXPECT_NO_THROW(add_distance_bias(a, isa()));
  DistanceBiasArgs no_bias = a;
  no_bias.distance_bias = nullptr;
  EXPECT_THROW(add_distance_bias(no_bias, isa()), std::invalid_argument);
  DistanceBiasArgs no_keys = a;
  no_keys.keys = 0;
  EXPECT_THROW(add_distance_bias(no_keys, isa()), std::invalid_argument);
}

INSTANTIATE_TEST_SUITE_P(Isas, PeKernelsTest, ::testing::ValuesIn(compiled_isas()), isa_test_name);

// ---------------------------------------------------------------------------------------------
// ISA selection at the entry points.

TEST(PeKernelsIsaTest, UnsupportedIsaThrows) {
  int unsupported = 0;
  for (Isa isa : {Isa::kScalar, Isa::kAvx2, Isa::kAvx512, Isa::kNeon}) {
    if (isa_supported(isa)) continue;
    ++unsupported;
    SCOPED_TRACE(std::string(isa_name(isa)));
    const int32_t ids[] = {0};
    const float table[] = {1.0f, 2.0f};
    float out[2];
    EmbeddingArgs embedding;
    embedding.tokens = 1;
    embedding.d_model = 2;
    embedding.token_ids = ids;
    embedding.token_table = table;
    embedding.vocab_size = 1;
    embedding.out = out;
    EXPECT_THROW(embed_tokens(embedding, isa), std::invalid_argument);

    float q[2] = {1.0f, 2.0f};
    const float cos[] = {1.0f}, sin[] = {0.0f};
    RopeArgs rope;
    rope.tokens = 1;
    rope.heads = 1;
    rope.head_dim = 2;
    rope.rotary_dim = 2;
    rope.q = q;
    rope.q_stride = 2;
    rope.cos = cos;
    rope.sin = sin;
    rope.table_positions = 1;
    EXPECT_THROW(rotate_queries_keys(rope, isa), std::invalid_argument);

    float scores[1] = {0.0f};
    const float bias[] = {1.0f};
    DistanceBiasArgs distance;
    distance.scores = scores;
    distance.batch = 1;
    distance.heads = 1;
    distance.queries = 1;
    distance.keys = 1;
    distance.distance_bias = bias;
    EXPECT_THROW(add_distance_bias(distance, isa), std::invalid_argument);
    EXPECT_EQ(scores[0], 0.0f);
  }
  // Every build lacks at least one: NEON on x86-64, AVX2/AVX-512 elsewhere.
  EXPECT_GE(unsupported, 1);
}

}  // namespace
}  // namespace tinyenc
