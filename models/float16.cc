#include "models/float16.h"

#include <bit>
#include <cstring>

namespace tinyenc {

static_assert(std::endian::native == std::endian::little,
              "model files are little-endian; a big-endian host would need byte swaps here");

float float_from_f16(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1fu;
  uint32_t mantissa = bits & 0x3ffu;
  if (exponent == 0x1f) {
    // Infinity or NaN: keep the payload in the top mantissa bits, as hardware converters do.
    return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  }
  if (exponent != 0) {
    // Normal: re-bias the exponent from 15 to 127.
    return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
  }
  if (mantissa == 0) return std::bit_cast<float>(sign);  // +-0
  // Subnormal, value = mantissa * 2^-24: normalise it, since float32 has the range to.
  uint32_t float_exponent = 113;  // 2^-14, the exponent of the smallest normal F16
  while ((mantissa & 0x400u) == 0) {
    mantissa <<= 1;
    --float_exponent;
  }
  return std::bit_cast<float>(sign | (float_exponent << 23) | ((mantissa & 0x3ffu) << 13));
}

void convert_f16_to_float(const std::byte* source, size_t count, float* destination) {
  for (size_t i = 0; i < count; ++i) {
    uint16_t bits;
    std::memcpy(&bits, source + 2 * i, sizeof bits);  // the source may be misaligned
    destination[i] = float_from_f16(bits);
  }
}

}  // namespace tinyenc
