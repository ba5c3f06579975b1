#include "engine/pe/position_ids.h"

namespace tinyenc {

void position_ids(const int32_t* lengths, int64_t batch, int64_t seq, int64_t padding_idx,
                  int32_t* out, int64_t position_offset) {
  const int64_t first = (padding_idx < 0 ? 0 : padding_idx + 1) + position_offset;
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t t = 0; t < seq; ++t) {
      const bool real = t < lengths[b];
      out[b * seq + t] = static_cast<int32_t>(padding_idx < 0 || real ? first + t : padding_idx);
    }
  }
}

void packed_position_ids(const int32_t* lengths, int64_t batch, int64_t padding_idx, int32_t* out,
                         int64_t position_offset) {
  const int64_t first = (padding_idx < 0 ? 0 : padding_idx + 1) + position_offset;
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t t = 0; t < lengths[b]; ++t) *out++ = static_cast<int32_t>(first + t);
  }
}

}  // namespace tinyenc
