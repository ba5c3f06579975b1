// AVX-512 versions of quantize.h's range, statistics and quantization passes, lane for lane the
// AVX2 versions' operations (so the scalar specification's bits), sixteen values at a time with
// masked tails; compiled with -mavx512f, called only where the active ISA is avx512. The
// dequantization stays AVX2's: sixteen wide it ran 1.2x to 1.4x slower on AMD Zen 4
// (quantize_bench BM_DequantizeRows, 3072 outputs).
#include <immintrin.h>

#include <algorithm>

#include "engine/ops/lanes_avx512.h"
#include "engine/ops/quantize.h"

namespace tinyenc::avx512 {
namespace {

ValueRange reduced(__m512 low, __m512 high) {
  alignas(64) float lows[16], highs[16];
  _mm512_store_ps(lows, low);
  _mm512_store_ps(highs, high);
  ValueRange range{lows[0], highs[0]};
  for (int lane = 1; lane < 16; ++lane) {
    range.min = std::min(range.min, lows[lane]);
    range.max = std::max(range.max, highs[lane]);
  }
  return range;
}

// Sixteen values -> sixteen int32 levels in [0, top], exactly scalar::quantize_activations's
// arithmetic: one multiply, round to nearest even, add the zero point, clamp (NaN -> 0).
inline __m512i levels_of(__m512 values, __m512 inverse, __m512 zero_point, __m512 top) {
  const __m512 scaled = _mm512_mul_ps(values, inverse);
  const __m512 rounded =
      _mm512_roundscale_ps(scaled, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m512 shifted = _mm512_add_ps(rounded, zero_point);
  const __m512 clamped = _mm512_min_ps(_mm512_max_ps(shifted, _mm512_setzero_ps()), top);
  return _mm512_cvtps_epi32(clamped);
}

}  // namespace

ValueRange activation_range(const float* values, int64_t count) {
  __m512 low = _mm512_set1_ps(values[0]), high = low;
  int64_t i = 0;
  for (; i + 16 <= count; i += 16) {
    const __m512 v = _mm512_loadu_ps(values + i);
    low = _mm512_min_ps(low, v);
    high = _mm512_max_ps(high, v);
  }
  if (i < count) {
    const __mmask16 inside = first_lanes(count - i);
    const __m512 v = _mm512_maskz_loadu_ps(inside, values + i);
    low = _mm512_mask_min_ps(low, inside, low, v);
    high = _mm512_mask_max_ps(high, inside, high, v);
  }
  return reduced(low, high);
}

void quantize_activations(const float* values, int64_t count, ActivationQuantization quantization,
                          int32_t levels, uint8_t* quantized) {
  const __m512 inverse = _mm512_set1_ps(1.0f / quantization.scale);
  const __m512 zero_point = _mm512_set1_ps(static_cast<float>(quantization.zero_point));
  const __m512 top = _mm512_set1_ps(static_cast<float>(levels));
  int64_t i = 0;
  for (; i + 32 <= count; i += 32) {
    const __m512i a = levels_of(_mm512_loadu_ps(values + i), inverse, zero_point, top);
    const __m512i b = levels_of(_mm512_loadu_ps(values + i + 16), inverse, zero_point, top);
    // Levels lie in [0, 255]: their low bytes are the levels.
    _mm_storeu_si128(reinterpret_cast<__m128i*>(quantized + i), _mm512_cvtepi32_epi8(a));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(quantized + i + 16), _mm512_cvtepi32_epi8(b));
  }
  for (; i < count; i += 16) {
    const __mmask16 inside = first_lanes(std::min<int64_t>(16, count - i));
    const __m512i a =
        levels_of(_mm512_maskz_loadu_ps(inside, values + i), inverse, zero_point, top);
    _mm512_mask_cvtepi32_storeu_epi8(quantized + i, inside, a);
  }
}

RowStatistics row_statistics(const float* values, int64_t count) {
  // The specification's 32 lanes: lanes 0-15 and 16-31.
  __m512 low[2], high[2], squares[2];
  for (int k = 0; k < 2; ++k) {
    low[k] = high[k] = _mm512_set1_ps(values[0]);
    squares[k] = _mm512_setzero_ps();
  }
  int64_t i = 0;
  for (; i + 32 <= count; i += 32) {
    for (int k = 0; k < 2; ++k) {
      const __m512 v = _mm512_loadu_ps(values + i + 16 * k);
      low[k] = _mm512_min_ps(low[k], v);
      high[k] = _mm512_max_ps(high[k], v);
      squares[k] = _mm512_add_ps(squares[k], _mm512_mul_ps(v, v));
    }
  }
  RowStatistics statistics;
  for (int64_t j = i; j < count; ++j) statistics.squares += values[j] * values[j];
  for (; i < count; i += 16) {
    const __mmask16 inside = first_lanes(std::min<int64_t>(16, count - i));
    const __m512 v = _mm512_maskz_loadu_ps(inside, values + i);
    low[0] = _mm512_mask_min_ps(low[0], inside, low[0], v);
    high[0] = _mm512_mask_max_ps(high[0], inside, high[0], v);
  }
  statistics.range = reduced(_mm512_min_ps(low[0], low[1]), _mm512_max_ps(high[0], high[1]));
  // Lanes j and j + 8 of each register, then the two registers' sums: (j + (j + 8)) +
  // ((j + 16) + (j + 24)), as the specification pairs them.
  const auto halves = [](__m512 v) {
    return _mm256_add_ps(_mm512_castps512_ps256(v), high_half(v));
  };
  alignas(32) float lane_sum[8];
  _mm256_store_ps(lane_sum, _mm256_add_ps(halves(squares[0]), halves(squares[1])));
  for (float lane : lane_sum) statistics.squares += lane;
  return statistics;
}

}  // namespace tinyenc::avx512
