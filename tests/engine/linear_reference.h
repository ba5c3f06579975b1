// The Linear layer worked in double precision over the original f32 weights, and the error each
// compute dtype may add, derived from its rounding:
//   f32:  float rounding of the sums only (1e-5 of the magnitude sum |x_i w_i|);
//   bf16: each product x_i w_i picks up at most 2^-8 relative error per rounded operand;
//   int8: |sum x^ w^ - x w| <= sum (|x_i| dw + |w_i| dx + dx dw), with dx half the activation
//         step (one scale for the whole input, its range including 0) and dw half the output
//         channel's weight step (its largest |w| / 127).
// The bound is on the pre-activation value; the epilogues' Lipschitz constant (1.13 for GELU, 1
// for ReLU and tanh) carries it through.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "engine/dtype.h"
#include "engine/ops/matmul.h"
#include "engine/ops/quantize.h"

namespace tinyenc::testing {

// `count` draws from N(0, scale^2), the same for the same seed.
inline std::vector<float> normal_values(int64_t count, float scale, uint32_t seed) {
  std::mt19937 random(seed);
  std::normal_distribution<float> normal(0.0f, scale);
  std::vector<float> values(static_cast<size_t>(count));
  for (float& v : values) v = normal(random);
  return values;
}

inline double apply_epilogue(Epilogue epilogue, double v) {
  switch (epilogue) {
    case Epilogue::kGeluErf:
      return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
    case Epilogue::kGeluTanh:
      return 0.5 * v * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v)));
    case Epilogue::kRelu:
      return std::max(v, 0.0);
    case Epilogue::kTanh:
      return std::tanh(v);
    case Epilogue::kNone:
      break;
  }
  return v;
}

// The double-precision sums of y[rows, out] = x[rows, in] w[out, in]^T + bias (bias may be
// null), worked once for up to `rows` rows; any first rows of x can then be checked with an
// epilogue and a residual in O(rows * out).
class LinearReference {
 public:
  LinearReference(const float* x, const float* w, const float* bias, int64_t rows, int64_t in,
                  int64_t out)
      : x_(x), rows_(rows), in_(in), out_(out) {
    const size_t cells = static_cast<size_t>(rows * out);
    sum_.resize(cells), magnitude_.resize(cells);
    row_abs_.assign(static_cast<size_t>(rows), 0.0), channel_abs_.assign(size_t(out), 0.0);
    channel_step_.resize(static_cast<size_t>(out));
    for (int64_t o = 0; o < out; ++o) {
      const float* wo = w + o * in;
      double largest = 0.0;
      for (int64_t i = 0; i < in; ++i) {
        largest = std::max(largest, std::fabs(double(wo[i])));
        channel_abs_[o] += std::fabs(double(wo[i]));
      }
      channel_step_[o] = 0.5 * largest / 127.0;
      for (int64_t r = 0; r < rows; ++r) {
        const float* xr = x + r * in;
        double sum = bias ? bias[o] : 0.0, magnitude = 0.0;
        for (int64_t i = 0; i < in; ++i) {
          sum += double(xr[i]) * wo[i];
          magnitude += std::fabs(double(xr[i]) * wo[i]);
        }
        sum_[r * out + o] = sum, magnitude_[r * out + o] = magnitude;
      }
    }
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t i = 0; i < in; ++i) row_abs_[r] += std::fabs(double(x[r * in + i]));
    }
  }

  // Empty when each element of y[rows, out] (the first `rows` rows, with `epilogue` and
  // residual[rows, out] when not null) is within `dtype`'s bound of the double result, else
  // where the first one is not.
  std::string mismatch(ComputeDtype dtype, int64_t rows, Epilogue epilogue, const float* residual,
                       const float* y) const {
    double dx = 0.0;  // int8: half the activation step of the rows quantized together
    if (dtype == ComputeDtype::kInt8) {
      double low = 0.0, high = 0.0;
      for (int64_t i = 0; i < rows * in_; ++i) {
        low = std::min(low, double(x_[i])), high = std::max(high, double(x_[i]));
      }
      dx = 0.5 * (high - low) / activation_levels();
    }
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t o = 0; o < out_; ++o) {
        const size_t cell = static_cast<size_t>(r * out_ + o);
        double bound = 0.0;
        if (dtype == ComputeDtype::kBF16) bound = (0x1p-8 + 0x1p-8 + 0x1p-16) * magnitude_[cell];
        if (dtype == ComputeDtype::kInt8) {
          const double dw = channel_step_[o];
          bound = (row_abs_[r] * dw + channel_abs_[o] * dx + double(in_) * dx * dw) * (1 + 1e-4);
        }
        double expected = apply_epilogue(epilogue, sum_[cell]);
        if (residual) expected += residual[cell];
        const double allowed = 1.13 * (bound + 1e-5 * magnitude_[cell]) + 1e-5;
        const double actual = y[cell];
        if (!(std::fabs(actual - expected) <= allowed)) {
          std::ostringstream where;
          where << compute_dtype_name(dtype) << " " << in_ << " -> " << out_ << " on " << rows
                << " rows, epilogue " << static_cast<int>(epilogue) << ": [" << r << ", " << o
                << "] is " << actual << ", expected " << expected << " within " << allowed;
          return where.str();
        }
      }
    }
    return {};
  }

  int64_t rows() const { return rows_; }

 private:
  const float* x_;
  int64_t rows_, in_, out_;
  std::vector<double> sum_, magnitude_;  // [rows, out]
  std::vector<double> row_abs_;          // sum_i |x[r][i]|
  std::vector<double> channel_abs_;      // sum_i |w[o][i]|
  std::vector<double> channel_step_;     // half of w[o]'s int8 step
};

}  // namespace tinyenc::testing
