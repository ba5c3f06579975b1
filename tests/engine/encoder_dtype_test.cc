// The whole encoder in bf16 and int8 against itself in f32, on the random benchmark presets: the
// accuracy gates each dtype must meet, and a dtype this CPU cannot run is refused by name.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/dtype.h"
#include "engine/encoder.h"
#include "engine/random_encoder.h"

namespace tinyenc {
namespace {

struct DtypeRun {
  EncoderOutput output;
  std::string implementation;
};

DtypeRun run(const EncoderConfig& base, ComputeDtype dtype, int64_t batch, int64_t seq) {
  EncoderConfig config = base;
  config.dtype = dtype;
  Encoder encoder(config, random_encoder_weights(config, 42));
  EXPECT_EQ(encoder.matmul_implementation(), "");
  std::mt19937 random(7);
  std::uniform_int_distribution<int32_t> token(1000, 29000);
  std::vector<int32_t> ids(static_cast<size_t>(batch * seq));
  for (int32_t& id : ids) id = token(random);
  std::vector<int32_t> lengths(static_cast<size_t>(batch), static_cast<int32_t>(seq));
  lengths.back() = static_cast<int32_t>(seq / 2 + 1);  // one padded sequence
  EncoderInput input;
  input.batch = batch;
  input.seq = seq;
  input.ids = ids.data();
  input.lengths = lengths.data();
  DtypeRun result{encoder.forward(input), ""};
  result.implementation = encoder.matmul_implementation();
  return result;
}

double cosine(const float* a, const float* b, int64_t n) {
  double ab = 0, aa = 0, bb = 0;
  for (int64_t i = 0; i < n; ++i)
    ab += double(a[i]) * b[i], aa += double(a[i]) * a[i], bb += double(b[i]) * b[i];
  return ab / std::sqrt(aa * bb);
}

// Pooled outputs' cosine to f32 per sequence, and the largest |difference| of the last hidden
// state over real (not padding) tokens.
struct Agreement {
  double min_cosine = 1.0;
  double max_hidden_error = 0.0;
};

Agreement compare(const EncoderOutput& reference, const EncoderOutput& other, int64_t seq) {
  Agreement a;
  const int64_t d = reference.d_model;
  for (int64_t b = 0; b < reference.batch; ++b) {
    a.min_cosine = std::min(
        a.min_cosine, cosine(reference.pooled.data() + b * d, other.pooled.data() + b * d, d));
    const int64_t length = b + 1 == reference.batch ? seq / 2 + 1 : seq;
    for (int64_t i = b * seq * d; i < (b * seq + length) * d; ++i) {
      a.max_hidden_error = std::max(
          a.max_hidden_error, std::fabs(double(reference.last_hidden[i]) - other.last_hidden[i]));
    }
  }
  return a;
}

class EncoderDtype : public ::testing::TestWithParam<const char*> {};

TEST_P(EncoderDtype, Int8PooledCosineAtLeast0999) {
  if (const std::string reason = dtype_unsupported_reason(ComputeDtype::kInt8); !reason.empty()) {
    GTEST_SKIP() << reason;
  }
  const EncoderConfig config = *preset_config(GetParam());
  for (int64_t seq : {5, 40}) {
    const DtypeRun f32 = run(config, ComputeDtype::kF32, 2, seq);
    const DtypeRun int8 = run(config, ComputeDtype::kInt8, 2, seq);
    const Agreement a = compare(f32.output, int8.output, seq);
    EXPECT_GE(a.min_cosine, 0.999) << GetParam() << " seq " << seq;
    EXPECT_FALSE(int8.implementation.empty());
    // The dequantization post-ops keep oneDNN on an optimized kernel, not its reference loop.
    EXPECT_NE(int8.implementation.rfind("ref", 0), 0u) << int8.implementation;
    std::printf("[ int8     ] %s seq %lld: pooled cosine %.6f, max |hidden error| %.4f, %s\n",
                GetParam(), static_cast<long long>(seq), a.min_cosine, a.max_hidden_error,
                int8.implementation.c_str());
  }
}

TEST_P(EncoderDtype, Bf16PooledCosineAndHiddenError) {
  if (const std::string reason = dtype_unsupported_reason(ComputeDtype::kBF16); !reason.empty()) {
    GTEST_SKIP() << reason;
  }
  const EncoderConfig config = *preset_config(GetParam());
  for (int64_t seq : {5, 40, 80}) {
    const DtypeRun f32 = run(config, ComputeDtype::kF32, 2, seq);
    const DtypeRun bf16 = run(config, ComputeDtype::kBF16, 2, seq);
    const Agreement a = compare(f32.output, bf16.output, seq);
    EXPECT_GE(a.min_cosine, 0.9995) << GetParam() << " seq " << seq;
    EXPECT_LE(a.max_hidden_error, 3e-2) << GetParam() << " seq " << seq;
    EXPECT_NE(bf16.implementation.rfind("ref", 0), 0u) << bf16.implementation;
  }
}

INSTANTIATE_TEST_SUITE_P(Presets, EncoderDtype, ::testing::Values("tiny", "mini", "small"));

// Inputs of 1 to 3 tokens, each alone: few rows, each quantized with its own 255 (or 127)
// levels, so int8 quantizes them twice (ops::Matmul::rowwise_int8). The same 0.999 gate, on
// every preset, the 12-layer base among them, over 8 inputs per length (3 on base, whose weights
// take most of the test's time to make).
TEST(EncoderDtypeShort, Int8PooledCosineAtLeast0999OnOneToThreeTokens) {
  if (const std::string reason = dtype_unsupported_reason(ComputeDtype::kInt8); !reason.empty()) {
    GTEST_SKIP() << reason;
  }
  for (const char* preset : {"tiny", "mini", "small", "base"}) {
    EncoderConfig config = *preset_config(preset);
    const EncoderWeights weights = random_encoder_weights(config, 42);
    Encoder f32(config, weights);
    config.dtype = ComputeDtype::kInt8;
    Encoder int8(config, weights);
    std::mt19937 random(11);
    std::uniform_int_distribution<int32_t> token(1000, 29000);
    for (int32_t length : {1, 2, 3}) {
      double worst = 1.0;
      for (int input = 0; input < (config.layers > 4 ? 3 : 8); ++input) {
        std::vector<int32_t> ids(static_cast<size_t>(length));
        for (int32_t& id : ids) id = token(random);
        const EncoderInput one{1, length, ids.data(), &length, nullptr};
        const EncoderOutput a = f32.forward(one), b = int8.forward(one);
        worst = std::min(worst, cosine(a.pooled.data(), b.pooled.data(), config.d_model));
      }
      EXPECT_GE(worst, 0.999) << preset << ", " << length << " tokens";
      std::printf("[ int8     ] %s, %d tokens: worst pooled cosine %.6f\n", preset, length, worst);
    }
  }
}

// A dtype this CPU cannot run is an error naming the missing feature, never an emulation.
TEST(EncoderDtypeSupport, UnsupportedDtypeIsRefusedByName) {
  for (ComputeDtype dtype : {ComputeDtype::kF32, ComputeDtype::kBF16, ComputeDtype::kInt8}) {
    EncoderConfig config = *preset_config("tiny");
    config.dtype = dtype;
    const std::string reason = dtype_unsupported_reason(dtype);
    if (reason.empty()) {
      EXPECT_NO_THROW(Encoder(config, random_encoder_weights(config, 1)));
      continue;
    }
    try {
      Encoder encoder(config, random_encoder_weights(config, 1));
      ADD_FAILURE() << compute_dtype_name(dtype) << " was accepted: " << reason;
    } catch (const std::invalid_argument& error) {
      EXPECT_EQ(std::string(error.what()), reason);
    }
  }
}

// Weights already converted by the loader (bf16 bits, s8 with scales) run in every dtype.
TEST(EncoderDtypeSupport, ConvertedWeightFormsRun) {
  if (const std::string reason = dtype_unsupported_reason(ComputeDtype::kInt8); !reason.empty()) {
    GTEST_SKIP() << reason;
  }
  EncoderConfig config = *preset_config("tiny");
  EncoderWeights weights = random_encoder_weights(config, 5);
  // Every Linear as s8 per output channel, quantized here by hand.
  std::vector<std::vector<int8_t>> levels;
  std::vector<std::vector<float>> scales;
  levels.reserve(100);
  scales.reserve(100);
  const auto convert = [&](LinearWeights& w) {
    std::vector<int8_t>& q =
        levels.emplace_back(static_cast<size_t>(w.out_features * w.in_features));
    std::vector<float>& s = scales.emplace_back(static_cast<size_t>(w.out_features));
    for (int64_t o = 0; o < w.out_features; ++o) {
      float largest = 0.0f;
      for (int64_t i = 0; i < w.in_features; ++i)
        largest = std::max(largest, std::fabs(w.weight[o * w.in_features + i]));
      s[static_cast<size_t>(o)] = largest / 127.0f;
      for (int64_t i = 0; i < w.in_features; ++i) {
        q[static_cast<size_t>(o * w.in_features + i)] = static_cast<int8_t>(
            std::lround(w.weight[o * w.in_features + i] / s[static_cast<size_t>(o)]));
      }
    }
    w.weight = nullptr;
    w.weight_s8 = q.data();
    w.weight_scales = s.data();
  };
  for (LayerWeights& layer : weights.layers) {
    for (LinearWeights* w : {&layer.query, &layer.key, &layer.value, &layer.attention_output,
                             &layer.ffn_in, &layer.ffn_out}) {
      convert(*w);
    }
  }
  const EncoderWeights original = random_encoder_weights(config, 5);
  std::vector<int32_t> ids = {1001, 2002, 3003, 4004, 5005, 6006};
  EncoderInput input;
  input.batch = 1;
  input.seq = 6;
  input.ids = ids.data();
  Encoder reference(config, original);
  const EncoderOutput expected = reference.forward(input);
  for (ComputeDtype dtype : {ComputeDtype::kF32, ComputeDtype::kInt8}) {
    config.dtype = dtype;
    Encoder encoder(config, weights);
    const EncoderOutput output = encoder.forward(input);
    EXPECT_GE(cosine(expected.pooled.data(), output.pooled.data(), config.d_model), 0.999)
        << compute_dtype_name(dtype);
  }
}

}  // namespace
}  // namespace tinyenc
