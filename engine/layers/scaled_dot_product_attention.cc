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
  const int64_t b = batch.batch, t = batch.seq, h = heads_, dh = head_dim_, d = h * dh;
  float* q = qkv;
  float* k = qkv + d;
  const float* v = qkv + 2 * d;
  const auto heads_of = [&](const float* base) {
    return View4{base, {b, h, t, dh}, {t * 3 * d, dh, 3 * d, 1}};
  };
  float* scores = scores_->data();

  position_encoding_->rotate_queries_keys({q, k, 3 * d, batch.tokens(), batch.position_ids});
  core_.scores(heads_of(q), heads_of(k), 1.0f / std::sqrt(static_cast<float>(dh)), batch.key_bias,
               {b, 1, 1, t}, scores);
  position_encoding_->add_score_bias(scores, b, t);
  softmax_(scores, b * h * t, t);
  if (batch.attention_probabilities) {
    batch.attention_probabilities->emplace_back(scores, scores + b * h * t * t);
  }
  core_.context(scores, heads_of(v), View4{context, {b, h, t, dh}, {t * d, dh, d, 1}});
}

}  // namespace tinyenc
