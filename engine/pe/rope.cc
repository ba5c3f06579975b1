#include "engine/pe/rope.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace tinyenc {

std::vector<float> rope_inverse_frequencies(int64_t rotary_dim, double theta) {
  if (rotary_dim <= 0 || rotary_dim % 2 != 0) {
    throw std::invalid_argument("rope: rotary_dim must be even and > 0, got " +
                                std::to_string(rotary_dim));
  }
  if (!(theta > 1.0) || !std::isfinite(theta))
    throw std::invalid_argument("rope: theta must be > 1");
  // 1.0 / (base ** (torch.arange(0, dim, 2).float() / dim)), all in float32.
  std::vector<float> inverse(static_cast<size_t>(rotary_dim / 2));
  const float base = static_cast<float>(theta);
  for (int64_t i = 0; i < rotary_dim / 2; ++i) {
    const float exponent = static_cast<float>(2 * i) / static_cast<float>(rotary_dim);
    inverse[static_cast<size_t>(i)] = 1.0f / std::pow(base, exponent);
  }
  return inverse;
}

RopeTable::RopeTable(int64_t rotary_dim, double theta)
    : rotary_dim_(rotary_dim), inverse_frequencies_(rope_inverse_frequencies(rotary_dim, theta)) {}

void RopeTable::reserve(int64_t positions) {
  if (positions <= positions_) return;
  const int64_t grown = std::max<int64_t>(positions, std::max<int64_t>(2 * positions_, 64));
  const int64_t half = rotary_dim_ / 2;
  cos_.resize(static_cast<size_t>(grown * half));
  sin_.resize(static_cast<size_t>(grown * half));
  for (int64_t position = positions_; position < grown; ++position) {
    for (int64_t i = 0; i < half; ++i) {
      const float angle =
          static_cast<float>(position) * inverse_frequencies_[static_cast<size_t>(i)];
      cos_[static_cast<size_t>(position * half + i)] = std::cos(angle);
      sin_[static_cast<size_t>(position * half + i)] = std::sin(angle);
    }
  }
  positions_ = grown;
}

}  // namespace tinyenc
