#include "engine/ops/quantize.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "engine/dtype.h"
#include "engine/isa.h"

namespace tinyenc {

void quantize_weights_s8(const float* weight, int64_t out_features, int64_t in_features,
                         int8_t* quantized, float* scales) {
  for (int64_t o = 0; o < out_features; ++o) {
    const float* row = weight + o * in_features;
    float largest = 0.0f;
    for (int64_t i = 0; i < in_features; ++i) largest = std::max(largest, std::fabs(row[i]));
    // A row of zeros (or of magnitudes so small that the scale would be subnormal) keeps
    // scale 1: every q is 0 either way, and nothing divides by zero.
    const float scale = largest / 127.0f;
    scales[o] = scale >= std::numeric_limits<float>::min() ? scale : 1.0f;
    const float inverse = 1.0f / scales[o];
    for (int64_t i = 0; i < in_features; ++i) {
      const float q = std::nearbyint(row[i] * inverse);
      quantized[o * in_features + i] = static_cast<int8_t>(std::clamp(q, -127.0f, 127.0f));
    }
  }
}

ActivationQuantization choose_activation_quantization(ValueRange range, int32_t levels) {
  const float low = std::min(range.min, 0.0f), high = std::max(range.max, 0.0f);
  const float n = static_cast<float>(levels);
  // high / n - low / n rather than (high - low) / n: the difference of two huge magnitudes of
  // opposite signs would overflow.
  float scale = high / n - low / n;
  // A zero range (all inputs 0) or a subnormal one: any scale represents it; 1 / scale must
  // stay finite.
  if (!(scale >= std::numeric_limits<float>::min() * n)) scale = 1.0f;
  const float zero_point = std::clamp(std::nearbyint(-low / scale), 0.0f, n);
  return {scale, static_cast<int32_t>(zero_point)};
}

namespace scalar {

ValueRange activation_range(const float* values, int64_t count) {
  ValueRange range{values[0], values[0]};
  for (int64_t i = 1; i < count; ++i) {
    range.min = std::min(range.min, values[i]);
    range.max = std::max(range.max, values[i]);
  }
  return range;
}

void quantize_activations(const float* values, int64_t count, ActivationQuantization quantization,
                          int32_t levels, uint8_t* quantized) {
  const float inverse = 1.0f / quantization.scale;
  const float zero_point = static_cast<float>(quantization.zero_point);
  const float top = static_cast<float>(levels);
  for (int64_t i = 0; i < count; ++i) {
    const float q = std::nearbyint(values[i] * inverse) + zero_point;
    // max(0, q) first: a NaN input becomes 0, as _mm256_max_ps(q, 0) makes it.
    quantized[i] = static_cast<uint8_t>(std::min(std::max(0.0f, q), top));
  }
}

void dequantize_row(const int32_t* sums, ActivationQuantization quantization,
                    const float* weight_scales, const int32_t* row_sums, const float* bias,
                    bool add, const float* residual, int64_t out, float* y) {
  for (int64_t o = 0; o < out; ++o) {
    int32_t level_sum;  // copied, not read through sums: in place, sums[o] is y[o]'s storage
    std::memcpy(&level_sum, sums + o, sizeof level_sum);
    const float value = quantization.scale * weight_scales[o] *
                        static_cast<float>(level_sum - quantization.zero_point * row_sums[o]);
    const float sum = add ? y[o] + value : value + (bias ? bias[o] : 0.0f);
    y[o] = residual ? sum + residual[o] : sum;
  }
}

RowStatistics row_statistics(const float* values, int64_t count) {
  RowStatistics statistics{activation_range(values, count), 0.0f};
  float partial[32] = {};
  int64_t i = 0;
  for (; i + 32 <= count; i += 32) {
    for (int lane = 0; lane < 32; ++lane) partial[lane] += values[i + lane] * values[i + lane];
  }
  for (; i < count; ++i) statistics.squares += values[i] * values[i];
  for (int lane = 0; lane < 8; ++lane) {
    statistics.squares +=
        (partial[lane] + partial[lane + 8]) + (partial[lane + 16] + partial[lane + 24]);
  }
  return statistics;
}

}  // namespace scalar

ValueRange activation_range(const float* values, int64_t count) {
#if defined(__x86_64__)
  if (active_isa() == Isa::kAvx512) return avx512::activation_range(values, count);
  if (active_isa_runs_avx2()) return avx2::activation_range(values, count);
#endif
  return scalar::activation_range(values, count);
}

void quantize_activations(const float* values, int64_t count, ActivationQuantization quantization,
                          int32_t levels, uint8_t* quantized) {
#if defined(__x86_64__)
  if (active_isa() == Isa::kAvx512)
    return avx512::quantize_activations(values, count, quantization, levels, quantized);
  if (active_isa_runs_avx2())
    return avx2::quantize_activations(values, count, quantization, levels, quantized);
#endif
  scalar::quantize_activations(values, count, quantization, levels, quantized);
}

void dequantize_row(const int32_t* sums, ActivationQuantization quantization,
                    const float* weight_scales, const int32_t* row_sums, const float* bias,
                    bool add, const float* residual, int64_t out, float* y) {
#if defined(__x86_64__)
  if (active_isa_runs_avx2()) {
    return avx2::dequantize_row(sums, quantization, weight_scales, row_sums, bias, add, residual,
                                out, y);
  }
#endif
  scalar::dequantize_row(sums, quantization, weight_scales, row_sums, bias, add, residual, out, y);
}

RowStatistics row_statistics(const float* values, int64_t count) {
#if defined(__x86_64__)
  if (active_isa() == Isa::kAvx512) return avx512::row_statistics(values, count);
  if (active_isa_runs_avx2()) return avx2::row_statistics(values, count);
#endif
  return scalar::row_statistics(values, count);
}

int32_t activation_levels() {
  const CpuFeatures features = cpu_features();
  return features.avx512_vnni || features.amx_int8 ? 255 : 127;
}

}  // namespace tinyenc
