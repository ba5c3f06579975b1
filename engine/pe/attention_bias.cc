#include "engine/pe/attention_bias.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace tinyenc {
namespace {

std::vector<double> power_of_two_slopes(int64_t heads) {
  const double start = std::pow(2.0, -std::pow(2.0, -(std::log2(static_cast<double>(heads)) - 3)));
  std::vector<double> slopes;
  double slope = start;
  for (int64_t h = 0; h < heads; ++h, slope *= start) slopes.push_back(slope);
  return slopes;
}

std::vector<double> slopes_in_double(int64_t heads) {
  const int64_t closest = int64_t{1} << static_cast<int>(std::floor(std::log2(heads)));
  std::vector<double> slopes = power_of_two_slopes(closest);
  if (closest == heads) return slopes;
  const std::vector<double> doubled = slopes_in_double(2 * closest);
  for (int64_t k = 0; k < heads - closest; ++k) slopes.push_back(doubled[2 * k]);
  return slopes;
}

}  // namespace

std::vector<float> alibi_slopes(int64_t heads) {
  if (heads <= 0) throw std::invalid_argument("alibi: heads must be > 0");
  const std::vector<double> slopes = slopes_in_double(heads);
  return std::vector<float>(slopes.begin(), slopes.end());
}

std::vector<float> alibi_distance_bias(const std::vector<float>& slopes, int64_t queries,
                                       int64_t keys) {
  const int64_t span = queries + keys - 1;
  std::vector<float> bias(slopes.size() * static_cast<size_t>(span));
  for (size_t h = 0; h < slopes.size(); ++h) {
    for (int64_t r = 0; r < span; ++r) {
      const int64_t distance = std::abs(r - (queries - 1));
      bias[h * static_cast<size_t>(span) + static_cast<size_t>(r)] =
          -slopes[h] * static_cast<float>(distance);
    }
  }
  return bias;
}

int64_t t5_relative_bucket(int64_t relative_position, const RelativeParams& params) {
  // Hugging Face's T5Attention._relative_position_bucket(bidirectional=True), float32 as there.
  const int64_t half = params.num_buckets / 2;
  int64_t bucket = relative_position > 0 ? half : 0;
  const int64_t distance = std::abs(relative_position);
  const int64_t max_exact = half / 2;
  if (distance < max_exact) return bucket + distance;
  const float log_ratio = std::log(static_cast<float>(distance) / static_cast<float>(max_exact)) /
                          static_cast<float>(std::log(static_cast<double>(params.max_distance) /
                                                      static_cast<double>(max_exact)));
  const int64_t large =
      max_exact + static_cast<int64_t>(log_ratio * static_cast<float>(half - max_exact));
  return bucket + std::min(large, half - 1);
}

std::vector<float> relative_distance_bias(const float* table, int64_t heads,
                                          const RelativeParams& params, int64_t queries,
                                          int64_t keys) {
  if (params.num_buckets < 4 || params.max_distance <= params.num_buckets / 4) {
    throw std::invalid_argument(
        "relative bias: need num_buckets >= 4 and max_distance > num_buckets/4");
  }
  const int64_t span = queries + keys - 1;
  std::vector<float> bias(static_cast<size_t>(heads * span));
  for (int64_t r = 0; r < span; ++r) {
    const int64_t bucket = t5_relative_bucket(r - (queries - 1), params);
    for (int64_t h = 0; h < heads; ++h) {
      bias[static_cast<size_t>(h * span + r)] = table[bucket * heads + h];
    }
  }
  return bias;
}

}  // namespace tinyenc
