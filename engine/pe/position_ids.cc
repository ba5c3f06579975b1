#include "engine/pe/position_ids.h"

namespace tinyenc {

void sequential_position_ids(int64_t batch, int64_t seq, int32_t* out) {
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t t = 0; t < seq; ++t) out[b * seq + t] = static_cast<int32_t>(t);
  }
}

void padded_position_ids(const int32_t* token_ids, int64_t batch, int64_t seq,
                         int32_t pad_token_id, int32_t padding_idx, int32_t* out) {
  for (int64_t b = 0; b < batch; ++b) {
    int32_t count = 0;
    for (int64_t t = 0; t < seq; ++t) {
      const bool real = token_ids[b * seq + t] != pad_token_id;
      count += real;
      out[b * seq + t] = real ? padding_idx + count : padding_idx;
    }
  }
}

}  // namespace tinyenc
