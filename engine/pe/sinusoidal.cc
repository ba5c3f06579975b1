#include "engine/pe/sinusoidal.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

namespace tinyenc {

std::vector<float> sinusoidal_frequencies(int64_t d_model, double base) {
  if (d_model <= 0 || d_model % 2 != 0) {
    throw std::invalid_argument("sinusoidal position encoding: d_model must be even and > 0, got " +
                                std::to_string(d_model));
  }
  if (!(base > 1.0) || !std::isfinite(base)) {
    throw std::invalid_argument("sinusoidal position encoding: base must be > 1");
  }
  // torch.arange(0, d, 2).float() * (-math.log(base) / d): the Python double is rounded to
  // float32 before the float32 multiply; torch.exp on float32 calls expf on the reference path.
  const float exponent_step = static_cast<float>(-std::log(base) / static_cast<double>(d_model));
  std::vector<float> frequencies(static_cast<size_t>(d_model / 2));
  for (int64_t i = 0; i < d_model / 2; ++i) {
    const float exponent = static_cast<float>(2 * i) * exponent_step;
    frequencies[static_cast<size_t>(i)] = std::exp(exponent);
  }
  return frequencies;
}

void sinusoidal_rows(const SinusoidalParams& params, int64_t d_model, int64_t first_position,
                     int64_t count, float* out) {
  const std::vector<float> frequencies = sinusoidal_frequencies(d_model, params.base);
  const int64_t half = d_model / 2;
  for (int64_t row = 0; row < count; ++row) {
    const float position = static_cast<float>(first_position + row);
    float* values = out + row * d_model;
    for (int64_t i = 0; i < half; ++i) {
      const float angle = position * frequencies[static_cast<size_t>(i)];
      const float sine = std::sin(angle);
      const float cosine = std::cos(angle);
      if (params.layout == SinusoidalLayout::kInterleaved) {
        values[2 * i] = sine;
        values[2 * i + 1] = cosine;
      } else {
        values[i] = sine;
        values[half + i] = cosine;
      }
    }
  }
}

SinusoidalTable::SinusoidalTable(int64_t d_model, SinusoidalParams params)
    : d_model_(d_model), params_(params) {
  sinusoidal_frequencies(d_model, params.base);  // validates d_model and base up front
}

const float* SinusoidalTable::rows(int64_t positions) {
  if (positions < 0) throw std::invalid_argument("sinusoidal table: negative position count");
  if (positions > positions_) {
    const int64_t grown = std::max<int64_t>(positions, std::max<int64_t>(2 * positions_, 64));
    constexpr size_t kAlignment = 64;
    constexpr size_t kSlack = kAlignment / sizeof(float) - 1;
    std::vector<float> storage(static_cast<size_t>(grown * d_model_) + kSlack);
    const uintptr_t address = reinterpret_cast<uintptr_t>(storage.data());
    const size_t offset = ((kAlignment - address % kAlignment) % kAlignment) / sizeof(float);
    std::copy_n(storage_.data() + offset_, static_cast<size_t>(positions_ * d_model_),
                storage.data() + offset);
    sinusoidal_rows(params_, d_model_, positions_, grown - positions_,
                    storage.data() + offset + positions_ * d_model_);
    storage_ = std::move(storage);
    offset_ = offset;
    positions_ = grown;
  }
  return storage_.data() + offset_;
}

}  // namespace tinyenc
