// GELU with the exact (erf) form, gelu(x) = x/2 (1 + erf(x / sqrt 2)), on plain arrays: the
// activation of an int8 Linear, applied to each output row as soon as it is dequantized, while
// the row is in cache, instead of oneDNN's eltwise primitive in a separate pass over all rows
// (quantize_bench BM_GeluErf: the two run at the same rate, about 1.6 G values/s on AMD Zen 4).
//
// erf is Abramowitz and Stegun's 7.1.26 (|error| <= 1.5e-7, the same as oneDNN's), written so
// that no 1 + erf cancels: with c = max(x, -13), z = c / sqrt 2, t = 1 / (1 + p |z|) and
// q = t P(t) exp(-z^2) = 1 - erf(|z|), gelu = c/2 (2 - q) for c >= 0 and c/2 q below (below
// -13, gelu is under 1e-37 in magnitude: c is clamped there so that -infinity gives about 0, not
// NaN). exp is exp.h's.
//
// The scalar function is the specification, step by step: every multiply-add is a fused one
// (std::fma), the division an IEEE one. The AVX2 and AVX-512 versions agree with it bit for bit.
#pragma once

#include <cstdint>

namespace tinyenc {

// values[i] = gelu_erf(values[i]) for i < count, in place.
void gelu_erf(float* values, int64_t count);

namespace scalar {
float gelu_erf(float x);
void gelu_erf(float* values, int64_t count);
}  // namespace scalar

namespace avx2 {
void gelu_erf(float* values, int64_t count);
}  // namespace avx2

namespace avx512 {
void gelu_erf(float* values, int64_t count);
}  // namespace avx512

}  // namespace tinyenc
