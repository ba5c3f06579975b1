// Widening IEEE 754 half precision (F16) in model files to float32. The conversion is exact:
// every F16 value (subnormals, infinities and NaN payloads included) is a float32 value.
// bfloat16, the other 16-bit format, is engine/bf16.h (the engine computes in it too).
#pragma once

#include <cstddef>
#include <cstdint>

namespace tinyenc {

// IEEE 754 binary16: 1 sign, 5 exponent (bias 15), 10 mantissa bits.
float float_from_f16(uint16_t bits);

// `count` little-endian values from `source` (any alignment) into `destination`.
void convert_f16_to_float(const std::byte* source, size_t count, float* destination);

}  // namespace tinyenc
