#include "engine/ops/gelu.h"

#include <cmath>
#include <cstdint>

#include "engine/isa.h"
#include "engine/ops/exp.h"
#include "engine/ops/gelu_constants.h"

namespace tinyenc {
namespace scalar {

float gelu_erf(float x) {
  using namespace gelu_constants;
  if (std::isnan(x)) return x;
  const float c = x < kLowest ? kLowest : x;
  const float t = 1.0f / std::fma(kP, std::fabs(c), 1.0f);
  const float polynomial =
      std::fma(std::fma(std::fma(std::fma(kA5, t, kA4), t, kA3), t, kA2), t, kA1);
  const float square = (c * c) * kHalfNegative;  // -z^2
  const float y = square < exp_constants::kExpLowest ? exp_constants::kExpLowest : square;
  const float q = (t * polynomial) * exp_nonpositive(y);
  return (0.5f * c) * (c >= 0.0f ? 2.0f - q : q);
}

void gelu_erf(float* values, int64_t count) {
  for (int64_t i = 0; i < count; ++i) values[i] = gelu_erf(values[i]);
}

}  // namespace scalar

void gelu_erf(float* values, int64_t count) {
#if defined(__x86_64__)
  if (active_isa() == Isa::kAvx512) return avx512::gelu_erf(values, count);
  if (active_isa_runs_avx2()) return avx2::gelu_erf(values, count);
#endif
  scalar::gelu_erf(values, count);
}

}  // namespace tinyenc
