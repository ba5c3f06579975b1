// The constants of gelu.h's erf-GELU, shared by its scalar specification and its AVX2 version.
#pragma once

namespace tinyenc::gelu_constants {

inline constexpr float kLowest = -13.0f;               // c = max(x, kLowest)
inline constexpr float kHalfNegative = -0.5f;          // -z^2 = c^2 * -1/2
inline constexpr float kP = 0.3275911f * 0.70710678f;  // p / sqrt 2: t = 1 / (1 + kP |c|)
inline constexpr float kA1 = 0.254829592f, kA2 = -0.284496736f, kA3 = 1.421413741f,
                       kA4 = -1.453152027f, kA5 = 1.061405429f;

}  // namespace tinyenc::gelu_constants
