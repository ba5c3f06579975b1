// e^y for y in [kExpLowest, 0], the exponential behind gelu.h's erf and softmax_rows.h: 2^n e^r
// with n = round(y / ln 2), r = y - n ln 2 by a two-part ln 2 (n * kLn2High exact), and e^r by
// its Taylor polynomial of degree 6 in fused multiply-adds (relative error under 2e-7 for
// |r| <= ln 2 / 2). This scalar function is the specification; exp_avx2.h's agrees bit for bit.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

namespace tinyenc::exp_constants {

inline constexpr float kExpLowest = -87.0f;  // e^-87 is a normal float, and 2^n one
inline constexpr float kLog2E = 1.44269504f;
inline constexpr float kLn2High = 0.693145752f;  // ln 2 = kLn2High + kLn2Low
inline constexpr float kLn2Low = 1.42860677e-6f;
inline constexpr float kE2 = 1.0f / 2, kE3 = 1.0f / 6, kE4 = 1.0f / 24, kE5 = 1.0f / 120,
                       kE6 = 1.0f / 720;

}  // namespace tinyenc::exp_constants

namespace tinyenc::scalar {

// y in [kExpLowest, 0] (not NaN).
inline float exp_nonpositive(float y) {
  using namespace exp_constants;
  const float n = std::nearbyint(y * kLog2E);
  const float r = std::fma(n, -kLn2Low, std::fma(n, -kLn2High, y));
  float e = std::fma(kE6, r, kE5);
  e = std::fma(e, r, kE4);
  e = std::fma(e, r, kE3);
  e = std::fma(e, r, kE2);
  e = std::fma(e, r, 1.0f);
  e = std::fma(e, r, 1.0f);
  // 2^n, n in [-126, 0]: a normal float's exponent field.
  const float two_n =
      std::bit_cast<float>(static_cast<uint32_t>(static_cast<int32_t>(n) + 127) << 23);
  return e * two_n;
}

}  // namespace tinyenc::scalar
