// bfloat16, the upper half of a float32 (1 sign, 8 exponent, 7 mantissa bits): the one
// conversion the bf16 matmul, the model loader and `tinyenc convert` share. Widening is exact
// (every bf16 value, subnormals, infinities and NaN payloads included, is a float32 value);
// narrowing rounds to nearest, ties to even.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tinyenc {

// float32 -> bfloat16 bits, rounded to nearest, ties to even (NaN stays a quiet NaN).
uint16_t bf16_from_f32(float value);
float f32_from_bf16(uint16_t bits);
void convert_to_bf16(const float* values, int64_t count, uint16_t* bits);

// `count` little-endian values from `source` (any alignment) into `destination`.
void convert_bf16_to_float(const std::byte* source, size_t count, float* destination);

}  // namespace tinyenc
