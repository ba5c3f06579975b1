// What the dtype accuracy gates share: PyTorch's facts (tests/golden/dtype/references.json,
// written by tools/golden/dtype_references.py), the skip for a dtype this CPU cannot run, and
// the distances between an output and its float32 twin.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "engine/dtype.h"
#include "engine/encoder.h"
#include "tests/support/test_data.h"

namespace tinyenc::testing {

inline const nlohmann::json& dtype_references() {
  static const nlohmann::json facts =
      read_json(source_dir() / "tests" / "golden" / "dtype" / "references.json");
  return facts;
}

// Skips the calling test, naming the missing CPU feature, when `dtype` does not run here.
#define TINYENC_REQUIRE_DTYPE(dtype)                                             \
  do {                                                                           \
    const std::string dtype_reason = ::tinyenc::dtype_unsupported_reason(dtype); \
    if (!dtype_reason.empty()) GTEST_SKIP() << dtype_reason;                     \
  } while (false)

// The encoder of `config` computing in `dtype`, from the same float32 weights.
inline EncoderConfig with_dtype(EncoderConfig config, ComputeDtype dtype) {
  config.dtype = dtype;
  return config;
}

inline double cosine(const float* a, const float* b, int64_t count) {
  double dot = 0.0, a2 = 0.0, b2 = 0.0;
  for (int64_t i = 0; i < count; ++i) {
    dot += double(a[i]) * b[i];
    a2 += double(a[i]) * a[i];
    b2 += double(b[i]) * b[i];
  }
  return dot / std::sqrt(a2 * b2);
}

inline double max_abs_difference(const float* a, const float* b, int64_t count) {
  double worst = 0.0;
  for (int64_t i = 0; i < count; ++i) worst = std::max(worst, double(std::abs(a[i] - b[i])));
  return worst;
}

// One sequence's distances from float32: of the pooled output (1 - cosine, largest absolute
// difference) and of the last hidden state over its own tokens (largest absolute difference).
struct DtypeDistances {
  double one_minus_cosine = 0.0;
  double max_abs_pooled = 0.0;
  double max_abs_hidden = 0.0;

  void widen(const DtypeDistances& other) {
    one_minus_cosine = std::max(one_minus_cosine, other.one_minus_cosine);
    max_abs_pooled = std::max(max_abs_pooled, other.max_abs_pooled);
    max_abs_hidden = std::max(max_abs_hidden, other.max_abs_hidden);
  }
};

// Row `b` of two outputs of the same batch, `length` real tokens.
inline DtypeDistances dtype_distances(const EncoderOutput& f32, const EncoderOutput& other,
                                      int64_t b, int64_t length) {
  const int64_t d = f32.d_model;
  DtypeDistances distances;
  distances.one_minus_cosine =
      1.0 - cosine(other.pooled.data() + b * d, f32.pooled.data() + b * d, d);
  distances.max_abs_pooled =
      max_abs_difference(other.pooled.data() + b * d, f32.pooled.data() + b * d, d);
  distances.max_abs_hidden =
      max_abs_difference(other.last_hidden.data() + b * f32.seq * d,
                         f32.last_hidden.data() + b * f32.seq * d, length * d);
  return distances;
}

// PyTorch's worst distances over a model's sequences, for one variant of references.json
// ("int8_per_channel", "int8_per_tensor", "bf16_autocast").
inline DtypeDistances pytorch_worst(const nlohmann::json& model_facts, const std::string& variant) {
  const nlohmann::json& facts = model_facts.at(variant);
  DtypeDistances worst;
  for (double value : facts.at("one_minus_cosine").get<std::vector<double>>()) {
    worst.one_minus_cosine = std::max(worst.one_minus_cosine, value);
  }
  for (double value : facts.at("max_abs_pooled").get<std::vector<double>>()) {
    worst.max_abs_pooled = std::max(worst.max_abs_pooled, value);
  }
  for (double value : facts.at("max_abs_hidden").get<std::vector<double>>()) {
    worst.max_abs_hidden = std::max(worst.max_abs_hidden, value);
  }
  return worst;
}

inline std::string describe(const DtypeDistances& distances) {
  std::ostringstream text;
  text << "1-cos " << distances.one_minus_cosine << ", max|pooled| " << distances.max_abs_pooled
       << ", max|hidden| " << distances.max_abs_hidden;
  return text.str();
}

}  // namespace tinyenc::testing
