// The conversions behind the int8 matmuls, on plain arrays (bfloat16's are engine/bf16.h): the
// symmetric per-output-channel int8 form of a weight matrix, and the dynamic (per-call)
// quantization of activations to u8 with a zero point.
//
// The scalar functions are the specification; the row passes run an AVX-512 or AVX2 version
// where tinyenc::active_isa() allows it (the dequantization AVX2's only), which must agree with
// them bit for bit.
#pragma once

#include <cstdint>

#include "engine/bf16.h"  // the bf16 rounding

namespace tinyenc {

// Symmetric int8 per output channel: scale[o] = max|w[o][:]| / 127, q = round(w / scale), so
// w ~= q * scale with q in [-127, 127]. An all-zero row gets scale 1 (and q 0).
void quantize_weights_s8(const float* weight, int64_t out_features, int64_t in_features,
                         int8_t* quantized, float* scales);

// Per-tensor asymmetric activation quantization: x ~= (q - zero_point) * scale with q in
// [0, levels]. The range always contains 0, so 0 is exact.
struct ActivationQuantization {
  float scale = 1.0f;
  int32_t zero_point = 0;
};

// The smallest and largest of `values` (count > 0).
struct ValueRange {
  float min = 0.0f;
  float max = 0.0f;
};
ValueRange activation_range(const float* values, int64_t count);

// The scale and zero point mapping [min(range.min, 0), max(range.max, 0)] onto [0, levels].
ActivationQuantization choose_activation_quantization(ValueRange range, int32_t levels);

// q = clamp(nearbyint(x * (1 / scale)) + zero_point, 0, levels).
void quantize_activations(const float* values, int64_t count, ActivationQuantization quantization,
                          int32_t levels, uint8_t* quantized);

// One row of an int8 Linear's output from oneDNN's s32 sums S[out] of a row quantized with
// `quantization`: value[o] = (scale * weight_scales[o]) * float(S[o] - zero_point * row_sums[o]);
// y[o] = value[o] + bias[o] (0 without a bias), or, with `add`, y[o] + value[o] (a second
// quantization's share); then, with a residual, + residual[o]. sums may be y itself (in place).
void dequantize_row(const int32_t* sums, ActivationQuantization quantization,
                    const float* weight_scales, const int32_t* row_sums, const float* bias,
                    bool add, const float* residual, int64_t out, float* y);

// A row's range and its sum of squares, in one pass (count > 0). The range is activation_range's.
// The squares are summed in 32 lanes: lane j adds values[i]^2 for i = j mod 32 in order (i below
// count rounded down to 32); the rest are added one by one, from 0; then lanes j, j + 8, j + 16
// and j + 24 are added as (j + (j + 8)) + ((j + 16) + (j + 24)), and those eight sums, j = 0 to
// 7, added to the rest in order. (Four independent chains of eight lanes: two AVX2 registers'
// worth of additions in flight per cycle instead of one chain's latency.)
struct RowStatistics {
  ValueRange range;
  float squares = 0.0f;
};
RowStatistics row_statistics(const float* values, int64_t count);

// The largest u8 activation level the int8 kernels can take without saturating. Without VNNI,
// oneDNN's u8 x s8 kernels multiply with vpmaddubsw, which adds two u8*s8 products into a
// saturating int16: 255 * 127 * 2 overflows it, 127 * 127 * 2 does not. So activations get 7
// bits there (as fbgemm's reduce_range), 8 bits where the dot products are VNNI's or AMX's.
int32_t activation_levels();

namespace scalar {
ValueRange activation_range(const float* values, int64_t count);
void quantize_activations(const float* values, int64_t count, ActivationQuantization quantization,
                          int32_t levels, uint8_t* quantized);
void dequantize_row(const int32_t* sums, ActivationQuantization quantization,
                    const float* weight_scales, const int32_t* row_sums, const float* bias,
                    bool add, const float* residual, int64_t out, float* y);
RowStatistics row_statistics(const float* values, int64_t count);
}  // namespace scalar

namespace avx2 {
ValueRange activation_range(const float* values, int64_t count);
void quantize_activations(const float* values, int64_t count, ActivationQuantization quantization,
                          int32_t levels, uint8_t* quantized);
void dequantize_row(const int32_t* sums, ActivationQuantization quantization,
                    const float* weight_scales, const int32_t* row_sums, const float* bias,
                    bool add, const float* residual, int64_t out, float* y);
RowStatistics row_statistics(const float* values, int64_t count);
}  // namespace avx2

namespace avx512 {  // no dequantize_row: AVX2's was faster (quantize_avx512.cc)
ValueRange activation_range(const float* values, int64_t count);
void quantize_activations(const float* values, int64_t count, ActivationQuantization quantization,
                          int32_t levels, uint8_t* quantized);
RowStatistics row_statistics(const float* values, int64_t count);
}  // namespace avx512

}  // namespace tinyenc
