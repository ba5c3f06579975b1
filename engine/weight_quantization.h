// The one definition of how a float32 weight becomes bf16 or int8, shared by the engine (which
// converts f32 weights when it is built) and `tinyenc convert` (which stores them converted), so
// that a converted model folder gives exactly the outputs of converting at load.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace tinyenc {

// bfloat16 bits of a finite float32, rounded to nearest, ties to even (what oneDNN's reorder and
// PyTorch's .to(torch.bfloat16) do).
inline uint16_t bf16_from_float(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  const uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

// Symmetric int8 with one scale per row (an output channel of a Linear weight [out, in], or one
// embedding's vector): scale = max|w| / 127, q = nearbyint(w / scale) (round half to even in the
// default rounding mode) clamped to [-127, 127], so w ~= q * scale. An all-zero row gets scale 1
// (every q is 0): a scale is always positive and finite.
inline float quantize_row_s8(const float* row, int64_t size, int8_t* quantized) {
  float largest = 0.0f;
  for (int64_t i = 0; i < size; ++i) largest = std::max(largest, std::fabs(row[i]));
  float scale = largest > 0.0f ? largest / 127.0f : 1.0f;
  // A row of subnormals can underflow to 0; the smallest normal float keeps the scale positive.
  if (!(scale > 0.0f)) scale = std::numeric_limits<float>::min();
  for (int64_t i = 0; i < size; ++i) {
    const float q = std::nearbyint(row[i] / scale);
    quantized[i] = static_cast<int8_t>(std::clamp(q, -127.0f, 127.0f));
  }
  return scale;
}

// Every row of a [rows, columns] matrix; scales[r] is row r's.
inline void quantize_rows_s8(const float* matrix, int64_t rows, int64_t columns, int8_t* quantized,
                             float* scales) {
  for (int64_t r = 0; r < rows; ++r) {
    scales[r] = quantize_row_s8(matrix + r * columns, columns, quantized + r * columns);
  }
}

// The float32 a quantized row stands for: q x scale, rounded once.
inline void dequantize_row_s8(const int8_t* quantized, int64_t size, float scale, float* row) {
  for (int64_t i = 0; i < size; ++i) row[i] = static_cast<float>(quantized[i]) * scale;
}

}  // namespace tinyenc
