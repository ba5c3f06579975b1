// Rotary position embedding tables (Su et al., RoFormer), computed as Hugging Face's
// rotary embedding does in float32:
//   inv_freq[i] = 1 / theta^(float(2i) / rotary_dim)      i in [0, rotary_dim/2)
//   angle       = float(pos) * inv_freq[i]
// The kernel (rotate_queries_keys in kernels.h) reads cos/sin rows of this table.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/pe/position_encoding.h"

namespace tinyenc {

std::vector<float> rope_inverse_frequencies(int64_t rotary_dim, double theta);

// cos and sin of every (position, frequency), [positions, rotary_dim / 2] each, grown on demand.
// Not thread-safe: grow it before sharing it with parallel readers.
class RopeTable {
 public:
  RopeTable(int64_t rotary_dim, double theta);

  // Ensures rows [0, positions) exist; pointers stay valid until the next growing call.
  void reserve(int64_t positions);
  const float* cos() const { return cos_.data(); }
  const float* sin() const { return sin_.data(); }
  int64_t positions() const { return positions_; }
  int64_t rotary_dim() const { return rotary_dim_; }

 private:
  int64_t rotary_dim_;
  std::vector<float> inverse_frequencies_;
  int64_t positions_ = 0;
  std::vector<float> cos_;
  std::vector<float> sin_;
};

}  // namespace tinyenc
