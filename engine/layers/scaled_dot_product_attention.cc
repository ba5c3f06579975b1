#include "engine/layers/scaled_dot_product_attention.h"

#include <cmath>

namespace tinyenc {

ScaledDotProductAttention::ScaledDotProductAttention(Runtime& runtime, int64_t heads,
                                                     int64_t head_dim,
                                                     const PositionEncoding& position_encoding,
                                                     AlignedBuffer& scores)
    : heads_(heads),
      head_dim_(head_dim),
      position_encoding_(&position_encoding),
      scores_(&scores),
      core_(runtime),
      softmax_(runtime) {}

void ScaledDotProductAttention::operator()(float* qkv, const Batch& batch, float* context) {
  const int64_t d = heads_ * head_dim_;
  // RoPE rotates every row by its own position id, whatever the layout.
  position_encoding_->rotate_queries_keys(
      {qkv, qkv + d, 3 * d, batch.tokens(), batch.position_ids});
  if (batch.runs == nullptr) {
    attend(qkv, batch.batch, batch.seq, batch.key_bias, batch.attention_probabilities, context);
    return;
  }
  // Packed: each run of equal-length sequences is a padding-free batch of its own.
  for (const SequenceRun& run : *batch.runs) {
    attend(qkv + run.first_row * 3 * d, run.count, run.length, nullptr,
           batch.attention_probabilities, context + run.first_row * d);
  }
}

void ScaledDotProductAttention::attend(const float* qkv, int64_t b, int64_t t,
                                       const float* key_bias,
                                       std::vector<std::vector<float>>* probabilities,
                                       float* context) {
  const int64_t h = heads_, dh = head_dim_, d = h * dh;
  const float* q = qkv;
  const float* k = qkv + d;
  const float* v = qkv + 2 * d;
  const auto heads_of = [&](const float* base) {
    return View4{base, {b, h, t, dh}, {t * 3 * d, dh, 3 * d, 1}};
  };
  float* scores = scores_->data();
  core_.scores(heads_of(q), heads_of(k), 1.0f / std::sqrt(static_cast<float>(dh)), key_bias,
               {b, 1, 1, t}, scores);
  position_encoding_->add_score_bias(scores, b, t);
  softmax_(scores, b * h * t, t);
  if (probabilities) probabilities->emplace_back(scores, scores + b * h * t * t);
  core_.context(scores, heads_of(v), View4{context, {b, h, t, dh}, {t * d, dh, d, 1}});
}

}  // namespace tinyenc
