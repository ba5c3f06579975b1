// Position ids of a batch of sequences padded at the tail: the one place they are computed, for
// the tables added to the embeddings and for RoPE alike.
#pragma once

#include <cstdint>

namespace tinyenc {

// out[b * seq + t] for sequences of lengths[b] real tokens each:
//   padding_idx < 0   0, 1, 2, ... in every sequence, padding included (BERT);
//   padding_idx >= 0  real tokens count up from padding_idx + 1 and padding gets padding_idx
//                     (RoBERTa / XLM-R: fairseq's make_positions, Hugging Face's
//                     create_position_ids_from_input_ids), so the table needs seq + padding_idx
//                     + 1 rows.
void position_ids(const int32_t* lengths, int64_t batch, int64_t seq, int64_t padding_idx,
                  int32_t* out);

// The same ids for sequences packed end to end without padding: sequence b's rows count up
// from 0 (or padding_idx + 1) over its lengths[b] rows.
void packed_position_ids(const int32_t* lengths, int64_t batch, int64_t padding_idx, int32_t* out);

}  // namespace tinyenc
