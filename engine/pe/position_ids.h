// Position ids for the learned (and sinusoidal) tables, per sequence of a [batch, seq] batch.
#pragma once

#include <cstdint>

namespace tinyenc {

// BERT: 0, 1, 2, ... in every sequence.
void sequential_position_ids(int64_t batch, int64_t seq, int32_t* out);

// RoBERTa / XLM-R: non-pad tokens count up from padding_idx + 1, pad tokens get padding_idx
// (Hugging Face's create_position_ids_from_input_ids: cumsum(mask) * mask + padding_idx, where
// mask = token_id != pad_token_id). The table needs seq + padding_idx + 1 rows.
void padded_position_ids(const int32_t* token_ids, int64_t batch, int64_t seq, int32_t pad_token_id,
                         int32_t padding_idx, int32_t* out);

}  // namespace tinyenc
