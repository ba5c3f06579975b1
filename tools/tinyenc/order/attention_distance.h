// `tinyenc order --attention-distance`: how far each attention head looks. For query token i and
// key token j of one sentence, with p_ij the head's attention probability (each row sums to 1),
//   mean distance  = sum_j p_ij |i - j|,
//   same token     = p_ii,   ±1 = sum over |i - j| = 1 of p_ij,   ±2 = the same for |i - j| = 2,
// each averaged over every query token of every sentence (the template's <s> </s> or [CLS] [SEP]
// included: they are tokens the heads attend to and from like any other). The same numbers for
// attention spread uniformly over each sentence are the baseline: over n tokens its mean distance
// is (n^2 - 1) / (3n). ALiBi's linear bias pulls attention towards near tokens; without a position
// encoding a head cannot prefer near over far, and its profile over offsets is flat.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "order/measurement.h"

namespace tinyenc::cli::order {

// Offsets j - i kept in the profile: -kProfileReach .. +kProfileReach.
constexpr int64_t kProfileReach = 6;

struct DistanceStatistics {
  double mean_distance = 0;
  double same = 0, plus_minus_1 = 0, plus_minus_2 = 0;
  // Share of attention at key j = i + offset, for offset -kProfileReach .. kProfileReach.
  std::vector<double> by_offset = std::vector<double>(2 * kProfileReach + 1, 0.0);
};

struct ModelAttentionDistance {
  std::string path, name, position_encoding;
  int64_t layers = 0, heads = 0;
  size_t sentences = 0, queries = 0;
  std::vector<DistanceStatistics> per_head;  // [layer * heads + head]
  DistanceStatistics uniform;                // attention spread evenly over each sentence
};

// The statistics of one [tokens, tokens] probability matrix (row-major, rows are queries),
// summed over its rows into `sum` (divide by the query count for the means).
void add_attention_rows(const float* probabilities, int64_t tokens, int64_t row_stride,
                        DistanceStatistics& sum);
// The same for uniform attention over `tokens` tokens.
void add_uniform_rows(int64_t tokens, DistanceStatistics& sum);

// Every model on every sentence, one padded forward pass per batch.
std::vector<ModelAttentionDistance> measure_attention_distance(
    const std::vector<std::filesystem::path>& models, const std::vector<Sentence>& sentences,
    const std::string& dtype, int threads);

// Per model: a row per layer and head, then each layer's mean over heads and the uniform baseline.
std::string attention_distance_table(const std::vector<ModelAttentionDistance>& models);
std::string attention_distance_json(const std::vector<ModelAttentionDistance>& models);
std::string attention_distance_csv(const std::vector<ModelAttentionDistance>& models);

}  // namespace tinyenc::cli::order
