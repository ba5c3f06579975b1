// Tolerances derived from float32 rounding, for comparing two float32 computations of the same
// values that may round differently: another oneDNN kernel (oneDNN picks gemm or brgemm, SSE4.1
// to AVX-512 or AMX, by CPU), another PE kernel (scalar, AVX2, AVX-512, NEON), the same tokens
// in another order or another batch, or PyTorch.
#pragma once

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>

namespace tinyenc::testing {

// The unit roundoff of float32: a correctly rounded result is off by at most this fraction of
// its magnitude (half an ulp).
constexpr double kFloatRoundoff = 0x1p-24;

// One unit in the last place of float32 at `magnitude`: the spacing of the floats of that size
// (1.2e-7 at 1, 4.8e-7 at 4, 9.5e-7 at 8), the grain every float32 result is rounded to.
inline double float_ulp(double magnitude) {
  const double normal = std::max(std::fabs(magnitude), static_cast<double>(FLT_MIN));
  return std::ldexp(static_cast<double>(FLT_EPSILON), std::ilogb(normal));
}

// The largest |value| of `count` floats.
inline double largest_magnitude(const float* values, int64_t count) {
  double largest = 0.0;
  for (int64_t i = 0; i < count; ++i) largest = std::max(largest, std::fabs(double(values[i])));
  return largest;
}

// The largest sum of |terms| a Linear layer (torch's [out, in] weight) adds up for inputs no
// larger than `input_magnitude`: a sum rounds relative to its terms, not to its (possibly
// cancelled) result, so a head's outputs are compared at this magnitude.
inline double linear_sum_magnitude(const float* weight, int64_t out, int64_t in,
                                   double input_magnitude) {
  double largest = 0.0;
  for (int64_t o = 0; o < out; ++o) {
    double row = 0.0;
    for (int64_t i = 0; i < in; ++i) row += std::fabs(double(weight[o * in + i]));
    largest = std::max(largest, row);
  }
  return largest * input_magnitude;
}

// Two float32 runs of one encoder that round differently. Each layer has eight reductions whose
// summation order another kernel, tile, vector width, batch or token order can change: the QKV
// projection, the attention scores, the softmax denominator, the context (a sum over the keys),
// the output projection, the two FFN matmuls and the LayerNorm statistics. Each can round its
// result differently by about one ulp, and the LayerNorm ending each sub-layer hands that on at
// the scale of its output; the embedding LayerNorm and the head (pooling, classifier) add one
// each. Allowed: that many ulps at `magnitude`, the largest value compared (for a head's outputs,
// linear_sum_magnitude). Measured: at most about two ulps per layer under every
// ONEDNN_MAX_CPU_ISA cap and PE kernel on AVX2 (Zen 3), 2.5 ulps over two layers on Sapphire
// Rapids (AVX-512, AMX).
constexpr int kReductionsPerEncoderLayer = 8;
inline double encoder_rounding_bound(double magnitude, int64_t layers) {
  return static_cast<double>(kReductionsPerEncoderLayer * layers + 2) * float_ulp(magnitude);
}

}  // namespace tinyenc::testing
