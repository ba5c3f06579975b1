// The batch in flight as every layer sees it: its shape and what the encoder derived from the
// input once per forward pass.
#pragma once

#include <cstdint>
#include <vector>

namespace tinyenc {

// Consecutive sequences of one length in a packed batch: rows [first_row, first_row + count *
// length) hold them end to end. Attention runs once per run, as a [count, length] batch.
struct SequenceRun {
  int64_t first_row = 0;
  int64_t count = 0;
  int64_t length = 0;
};

// Two layouts. Padded: `batch` sequences of `seq` rows each, padding after a sequence's end.
// Packed (runs != null): the sequences' rows end to end with no padding at all, so the linear
// layers and the FFN compute real tokens only; `seq` is then the longest sequence.
struct Batch {
  int64_t batch = 0;
  int64_t seq = 0;
  int64_t rows = 0;                       // tokens in the activations: batch * seq when padded
  const int32_t* position_ids = nullptr;  // [rows]
  const std::vector<SequenceRun>* runs = nullptr;  // packed: every row in exactly one run
  const float* key_bias =
      nullptr;  // padded only: [batch, seq]: 0 for tokens, -inf for padding; null: none
  // Where each layer appends its [batch, heads, seq, seq] softmax output; null: not kept.
  std::vector<std::vector<float>>* attention_probabilities = nullptr;

  int64_t tokens() const { return rows; }
};

}  // namespace tinyenc
