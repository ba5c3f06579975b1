#include "engine/bf16.h"

#include <bit>
#include <cmath>
#include <cstring>

namespace tinyenc {

static_assert(std::endian::native == std::endian::little,
              "model files are little-endian; a big-endian host would need byte swaps here");

uint16_t bf16_from_f32(float value) {
  const auto bits = std::bit_cast<uint32_t>(value);
  if (std::isnan(value)) return static_cast<uint16_t>((bits >> 16) | 0x40);  // quiet
  const uint32_t rounding = 0x7fff + ((bits >> 16) & 1);  // ties to the even neighbour
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

float f32_from_bf16(uint16_t bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

void convert_to_bf16(const float* values, int64_t count, uint16_t* bits) {
  for (int64_t i = 0; i < count; ++i) bits[i] = bf16_from_f32(values[i]);
}

void convert_bf16_to_float(const std::byte* source, size_t count, float* destination) {
  for (size_t i = 0; i < count; ++i) {
    uint16_t bits;
    std::memcpy(&bits, source + 2 * i, sizeof bits);  // the source may be misaligned
    destination[i] = f32_from_bf16(bits);
  }
}

}  // namespace tinyenc
