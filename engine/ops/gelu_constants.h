// The constants of gelu.h's erf-GELU, shared by its scalar specification and its AVX2 version.
#pragma once

namespace tinyenc::gelu_constants {

inline constexpr float kLowest = -13.0f;               // c = max(x, kLowest)
inline constexpr float kHalfNegative = -0.5f;          // -z^2 = c^2 * -1/2
inline constexpr float kP = 0.3275911f * 0.70710678f;  // p / sqrt 2: t = 1 / (1 + kP |c|)
inline constexpr float kA1 = 0.254829592f, kA2 = -0.284496736f, kA3 = 1.421413741f,
                       kA4 = -1.453152027f, kA5 = 1.061405429f;
inline constexpr float kExpLowest = -87.0f;  // e^-87 is a normal float; 2^n stays one
inline constexpr float kLog2E = 1.44269504f;
inline constexpr float kLn2High = 0.693145752f;   // ln 2 = kLn2High + kLn2Low, kLn2High's
inline constexpr float kLn2Low = 1.42860677e-6f;  // product by any n here is exact
inline constexpr float kE2 = 1.0f / 2, kE3 = 1.0f / 6, kE4 = 1.0f / 24, kE5 = 1.0f / 120,
                       kE6 = 1.0f / 720;

}  // namespace tinyenc::gelu_constants
