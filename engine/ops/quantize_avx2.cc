// AVX2 versions of quantize.h's activation passes; compiled with -mavx2 -mfma, called only where
// the CPU has AVX2.
#include <immintrin.h>

#include <algorithm>
#include <cmath>

#include "engine/ops/quantize.h"

namespace tinyenc::avx2 {

ValueRange activation_range(const float* values, int64_t count) {
  if (count < 8) return scalar::activation_range(values, count);
  __m256 low = _mm256_loadu_ps(values), high = low;
  int64_t i = 8;
  for (; i + 8 <= count; i += 8) {
    const __m256 v = _mm256_loadu_ps(values + i);
    low = _mm256_min_ps(low, v);
    high = _mm256_max_ps(high, v);
  }
  alignas(32) float lows[8], highs[8];
  _mm256_store_ps(lows, low);
  _mm256_store_ps(highs, high);
  ValueRange range{lows[0], highs[0]};
  for (int lane = 1; lane < 8; ++lane) {
    range.min = std::min(range.min, lows[lane]);
    range.max = std::max(range.max, highs[lane]);
  }
  for (; i < count; ++i) {
    range.min = std::min(range.min, values[i]);
    range.max = std::max(range.max, values[i]);
  }
  return range;
}

namespace {

// Eight values -> eight int32 levels in [0, top], exactly scalar::quantize_activations's
// arithmetic: one multiply, round to nearest even, add the zero point, clamp (NaN -> 0).
inline __m256i levels_of(const float* values, __m256 inverse, __m256 zero_point, __m256 top) {
  const __m256 scaled = _mm256_mul_ps(_mm256_loadu_ps(values), inverse);
  const __m256 rounded = _mm256_round_ps(scaled, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m256 shifted = _mm256_add_ps(rounded, zero_point);
  const __m256 clamped = _mm256_min_ps(_mm256_max_ps(shifted, _mm256_setzero_ps()), top);
  return _mm256_cvtps_epi32(clamped);
}

}  // namespace

void quantize_activations(const float* values, int64_t count, ActivationQuantization quantization,
                          int32_t levels, uint8_t* quantized) {
  const __m256 inverse = _mm256_set1_ps(1.0f / quantization.scale);
  const __m256 zero_point = _mm256_set1_ps(static_cast<float>(quantization.zero_point));
  const __m256 top = _mm256_set1_ps(static_cast<float>(levels));
  // packus works within 128-bit lanes; this permutation puts the 32 bytes back in order.
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  int64_t i = 0;
  for (; i + 32 <= count; i += 32) {
    const __m256i a = levels_of(values + i, inverse, zero_point, top);
    const __m256i b = levels_of(values + i + 8, inverse, zero_point, top);
    const __m256i c = levels_of(values + i + 16, inverse, zero_point, top);
    const __m256i d = levels_of(values + i + 24, inverse, zero_point, top);
    const __m256i bytes = _mm256_packus_epi16(_mm256_packus_epi32(a, b), _mm256_packus_epi32(c, d));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(quantized + i),
                        _mm256_permutevar8x32_epi32(bytes, order));
  }
  scalar::quantize_activations(values + i, count - i, quantization, levels, quantized + i);
}

void dequantize_row(const int32_t* sums, ActivationQuantization quantization,
                    const float* weight_scales, const int32_t* row_sums, const float* bias,
                    bool add, const float* residual, int64_t out, float* y) {
  const __m256 scale = _mm256_set1_ps(quantization.scale);
  const __m256i zero_point = _mm256_set1_epi32(quantization.zero_point);
  int64_t o = 0;
  for (; o + 8 <= out; o += 8) {
    const __m256i row_sum = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row_sums + o));
    const __m256i sum = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sums + o));
    const __m256 levels =
        _mm256_cvtepi32_ps(_mm256_sub_epi32(sum, _mm256_mullo_epi32(zero_point, row_sum)));
    const __m256 value =
        _mm256_mul_ps(_mm256_mul_ps(scale, _mm256_loadu_ps(weight_scales + o)), levels);
    __m256 result;
    if (add) {
      result = _mm256_add_ps(_mm256_loadu_ps(y + o), value);
    } else {
      result = _mm256_add_ps(value, bias ? _mm256_loadu_ps(bias + o) : _mm256_setzero_ps());
    }
    if (residual) result = _mm256_add_ps(result, _mm256_loadu_ps(residual + o));
    _mm256_storeu_ps(y + o, result);
  }
  scalar::dequantize_row(sums + o, quantization, weight_scales + o, row_sums + o,
                         bias ? bias + o : nullptr, add, residual ? residual + o : nullptr, out - o,
                         y + o);
}

RowStatistics row_statistics(const float* values, int64_t count) {
  // Four of each accumulator: lanes 0-7, 8-15, 16-23 and 24-31 of the specification's 32.
  __m256 low[4], high[4], squares[4];
  for (int k = 0; k < 4; ++k) {
    low[k] = high[k] = _mm256_set1_ps(values[0]);
    squares[k] = _mm256_setzero_ps();
  }
  int64_t i = 0;
  for (; i + 32 <= count; i += 32) {
    for (int k = 0; k < 4; ++k) {
      const __m256 v = _mm256_loadu_ps(values + i + 8 * k);
      low[k] = _mm256_min_ps(low[k], v);
      high[k] = _mm256_max_ps(high[k], v);
      squares[k] = _mm256_add_ps(squares[k], _mm256_mul_ps(v, v));
    }
  }
  RowStatistics statistics;
  for (int64_t j = i; j < count; ++j) statistics.squares += values[j] * values[j];
  for (; i + 8 <= count; i += 8) {
    const __m256 v = _mm256_loadu_ps(values + i);
    low[0] = _mm256_min_ps(low[0], v);
    high[0] = _mm256_max_ps(high[0], v);
  }
  const __m256 lane_squares =
      _mm256_add_ps(_mm256_add_ps(squares[0], squares[1]), _mm256_add_ps(squares[2], squares[3]));
  const __m256 lows = _mm256_min_ps(_mm256_min_ps(low[0], low[1]), _mm256_min_ps(low[2], low[3]));
  const __m256 highs =
      _mm256_max_ps(_mm256_max_ps(high[0], high[1]), _mm256_max_ps(high[2], high[3]));
  alignas(32) float lane_low[8], lane_high[8], lane_sum[8];
  _mm256_store_ps(lane_low, lows);
  _mm256_store_ps(lane_high, highs);
  _mm256_store_ps(lane_sum, lane_squares);
  statistics.range = {lane_low[0], lane_high[0]};
  for (int lane = 0; lane < 8; ++lane) {
    statistics.range.min = std::min(statistics.range.min, lane_low[lane]);
    statistics.range.max = std::max(statistics.range.max, lane_high[lane]);
    statistics.squares += lane_sum[lane];
  }
  for (; i < count; ++i) {
    statistics.range.min = std::min(statistics.range.min, values[i]);
    statistics.range.max = std::max(statistics.range.max, values[i]);
  }
  return statistics;
}

}  // namespace tinyenc::avx2
