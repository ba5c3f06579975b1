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

// PyTorch's distances for sequence `s` of a model, in one variant of references.json
// ("int8_per_channel", "int8_per_tensor", "bf16_autocast").
inline DtypeDistances pytorch_distances(const nlohmann::json& model_facts,
                                        const std::string& variant, size_t s) {
  const nlohmann::json& facts = model_facts.at(variant);
  DtypeDistances distances;
  distances.one_minus_cosine = facts.at("one_minus_cosine").at(s).get<double>();
  distances.max_abs_pooled = facts.at("max_abs_pooled").at(s).get<double>();
  distances.max_abs_hidden = facts.at("max_abs_hidden").at(s).get<double>();
  return distances;
}

// The worst and the mean of a model's per-sequence distances.
struct DtypeSummary {
  DtypeDistances worst, sum;
  int count = 0;

  void add(const DtypeDistances& distances) {
    worst.widen(distances);
    sum.one_minus_cosine += distances.one_minus_cosine;
    sum.max_abs_pooled += distances.max_abs_pooled;
    sum.max_abs_hidden += distances.max_abs_hidden;
    ++count;
  }
  DtypeDistances mean() const {
    const double n = count > 0 ? count : 1;
    return {sum.one_minus_cosine / n, sum.max_abs_pooled / n, sum.max_abs_hidden / n};
  }
};

inline std::string describe(const DtypeDistances& distances) {
  std::ostringstream text;
  text << "1-cos " << distances.one_minus_cosine << ", max|pooled| " << distances.max_abs_pooled
       << ", max|hidden| " << distances.max_abs_hidden;
  return text.str();
}

}  // namespace tinyenc::testing
