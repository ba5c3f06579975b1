#include "engine/encoder_weights.h"

#include <cstddef>

namespace tinyenc {

LinearSource LinearSource::of(const LinearWeights& w) {
  LinearSource source;
  source.f32 = w.weight;
  source.bf16 = w.weight_bf16;
  source.s8 = w.weight_s8;
  source.scales = w.weight_scales;
  source.out_features = w.out_features;
  source.in_features = w.in_features;
  return source;
}

LinearWeights linear_weights(const LinearSource& source, const float* bias) {
  LinearWeights weights;
  weights.weight = source.f32;
  weights.weight_bf16 = source.bf16;
  weights.weight_s8 = source.s8;
  weights.weight_scales = source.scales;
  weights.bias = bias;
  weights.out_features = source.out_features;
  weights.in_features = source.in_features;
  return weights;
}

LinearSource LinearSource::of_f32(const float* weight, int64_t out_features, int64_t in_features) {
  return in_form(ComputeDtype::kF32, weight, nullptr, out_features, in_features);
}

LinearSource LinearSource::in_form(ComputeDtype form, const void* values, const float* scales,
                                   int64_t out_features, int64_t in_features) {
  LinearSource source;
  switch (form) {
    case ComputeDtype::kF32:
      source.f32 = static_cast<const float*>(values);
      break;
    case ComputeDtype::kBF16:
      source.bf16 = static_cast<const uint16_t*>(values);
      break;
    case ComputeDtype::kInt8:
      source.s8 = static_cast<const int8_t*>(values);
      break;
  }
  if (dtype_traits(form).channel_scales) source.scales = scales;
  source.out_features = out_features;
  source.in_features = in_features;
  return source;
}

std::optional<ComputeDtype> LinearSource::form() const {
  if (f32) return ComputeDtype::kF32;
  if (bf16) return ComputeDtype::kBF16;
  if (s8) return ComputeDtype::kInt8;
  return std::nullopt;
}

const void* LinearSource::values() const {
  if (f32) return f32;
  if (bf16) return bf16;
  return s8;
}

float LinearSource::at(int64_t o, int64_t i) const {
  const DtypeTraits& traits = dtype_traits(*form());
  const auto* row = static_cast<const std::byte*>(values()) + o * in_features * traits.weight_bytes;
  float value = 0.0f;
  traits.to_f32(row + i * traits.weight_bytes, scales ? scales + o : nullptr, 1, 1, &value);
  return value;
}

}  // namespace tinyenc
