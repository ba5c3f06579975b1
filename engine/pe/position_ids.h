// Position ids of a batch of sequences padded at the tail: the one place they are computed, for
// the tables added to the embeddings and for RoPE alike.
#pragma once

#include <cstdint>

namespace tinyenc {

// out[b * seq + t] for sequences of lengths[b] real tokens each:
//   padding_idx < 0   K, K + 1, K + 2, ... in every sequence, padding included (BERT: K = 0);
//   padding_idx >= 0  real tokens count up from padding_idx + 1 + K and padding gets
//                     padding_idx (RoBERTa / XLM-R: fairseq's make_positions, Hugging Face's
//                     create_position_ids_from_input_ids), so the table needs seq + padding_idx
//                     + 1 + K rows.
// K = position_offset >= 0 shifts every sequence as if it began K tokens later (the
// shift-invariance experiment: relative encodings cannot tell, absolute ones can).
void position_ids(const int32_t* lengths, int64_t batch, int64_t seq, int64_t padding_idx,
                  int32_t* out, int64_t position_offset = 0);

// The same ids for sequences packed end to end without padding: sequence b's rows count up
// from K (or padding_idx + 1 + K) over its lengths[b] rows.
void packed_position_ids(const int32_t* lengths, int64_t batch, int64_t padding_idx, int32_t* out,
                         int64_t position_offset = 0);

}  // namespace tinyenc
