// The sinusoidal position encoding of Vaswani et al. 2017, exactly as the seed's PyTorch module
// computes it in float32:
//
//   div_term[i] = exp(float(2i) * float(-ln(base) / d_model))      i in [0, d_model/2)
//   angle       = float(pos) * div_term[i]                          (one float32 rounding)
//   PE(pos, 2i) = sin(angle),  PE(pos, 2i+1) = cos(angle)           (interleaved layout)
//   PE(pos, i)  = sin(angle),  PE(pos, i + d/2) = cos(angle)        (concat layout)
//
// Rounding the angle to float32 matters: near pos = 5000 one float32 ulp of the angle is ~5e-4,
// so a table computed in double precision differs from what a model trained with the module saw.
// This file is the scalar specification; the fused kernels read rows from a SinusoidalTable.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/pe/position_encoding.h"

namespace tinyenc {

// div_term of the seed module: d_model/2 frequencies (radians per position).
std::vector<float> sinusoidal_frequencies(int64_t d_model, double base);

// Writes `count` rows of the table, positions first_position .. first_position + count - 1,
// each d_model floats, into `out`. d_model must be even and positive.
void sinusoidal_rows(const SinusoidalParams& params, int64_t d_model, int64_t first_position,
                     int64_t count, float* out);

// A table of the first rows, grown on demand (doubling) so that a long input costs one fill.
// Row 0 starts on a 64-byte boundary (a cache line, the widest vector), so the kernels' vector
// loads of a row whose d_model is a multiple of 16 never straddle two cache lines.
// Not thread-safe: grow it before sharing it with parallel readers.
class SinusoidalTable {
 public:
  SinusoidalTable(int64_t d_model, SinusoidalParams params);

  // Ensures rows [0, positions) exist and returns row 0; the pointer stays valid until the next
  // call that grows the table.
  const float* rows(int64_t positions);

  int64_t d_model() const { return d_model_; }
  int64_t positions() const { return positions_; }
  const SinusoidalParams& params() const { return params_; }

 private:
  int64_t d_model_;
  SinusoidalParams params_;
  int64_t positions_ = 0;
  std::vector<float> storage_;  // the rows start at storage_[offset_], 64-byte aligned
  size_t offset_ = 0;
};

}  // namespace tinyenc
