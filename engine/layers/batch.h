// The batch in flight as every layer sees it: its shape and what the encoder derived from the
// input once per forward pass.
#pragma once

#include <cstdint>
#include <vector>

namespace tinyenc {

struct Batch {
  int64_t batch = 0;
  int64_t seq = 0;
  const int32_t* position_ids = nullptr;  // [batch * seq]
  const float* key_bias = nullptr;  // [batch, seq]: 0 for tokens, -inf for padding; null: none
  // Where each layer appends its [batch, heads, seq, seq] softmax output; null: not kept.
  std::vector<std::vector<float>>* attention_probabilities = nullptr;

  int64_t tokens() const { return batch * seq; }
};

}  // namespace tinyenc
