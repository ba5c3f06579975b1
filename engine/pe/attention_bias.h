// Position biases added to attention scores: ALiBi (Press et al. 2022) and T5's bucketed
// relative bias (Raffel et al. 2020). Both depend only on the distance j - i, so each is built as
// one row per head, [heads, queries + keys - 1] with entry (j - i + queries - 1), and added to
// the scores by add_distance_bias (kernels.h).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/pe/position_encoding.h"

namespace tinyenc {

// Head slopes m_h: for n a power of two, the geometric sequence starting at 2^(-8/n) with ratio
// 2^(-8/n); otherwise the slopes for the largest power of two below n, followed by every other
// slope of 2n (Press et al., as in their reference code).
std::vector<float> alibi_slopes(int64_t heads);

// Bias -m_h * |j - i| (bidirectional, for encoders).
std::vector<float> alibi_distance_bias(const std::vector<float>& slopes, int64_t queries,
                                       int64_t keys);

// T5's bidirectional bucket of relative_position = key index - query index: half the buckets
// for each sign (positive distances in the upper half); in each half, distances below
// num_buckets/4 get a bucket each, larger ones share logarithmically wider buckets up to
// max_distance, beyond which everything lands in the last bucket.
int64_t t5_relative_bucket(int64_t relative_position, const RelativeParams& params);

// Bias table[bucket(j - i), h] from a learned [num_buckets, heads] table.
std::vector<float> relative_distance_bias(const float* table, int64_t heads,
                                          const RelativeParams& params, int64_t queries,
                                          int64_t keys);

}  // namespace tinyenc
