// Widening the two 16-bit float formats of model files to float32. Both conversions are exact:
// every F16 and BF16 value (subnormals, infinities and NaN payloads included) is a float32 value.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tinyenc {

// IEEE 754 binary16: 1 sign, 5 exponent (bias 15), 10 mantissa bits.
float float_from_f16(uint16_t bits);

// bfloat16: the upper half of a float32 (1 sign, 8 exponent, 7 mantissa bits).
float float_from_bf16(uint16_t bits);

// `count` little-endian values from `source` (any alignment) into `destination`.
void convert_f16_to_float(const std::byte* source, size_t count, float* destination);
void convert_bf16_to_float(const std::byte* source, size_t count, float* destination);

}  // namespace tinyenc
