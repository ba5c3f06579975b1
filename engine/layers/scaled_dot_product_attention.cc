#include "engine/layers/scaled_dot_product_attention.h"

#include <algorithm>
#include <cmath>

#include "engine/ops/softmax_rows.h"

namespace tinyenc {

ScaledDotProductAttention::ScaledDotProductAttention(Runtime& runtime, int64_t heads,
                                                     int64_t head_dim,
                                                     const PositionEncoding& position_encoding,
                                                     AlignedBuffer& scores, bool bf16_products)
    : heads_(heads),
      head_dim_(head_dim),
      position_encoding_(&position_encoding),
      scores_(&scores),
      core_(runtime),
      bf16_products_(bf16_products),
      to_bf16_(runtime) {}

void ScaledDotProductAttention::operator()(float* qkv, const Batch& batch, float* context) {
  const int64_t d = heads_ * head_dim_;
  // RoPE rotates every row by its own position id, whatever the layout.
  position_encoding_->rotate_queries_keys(
      {qkv, qkv + d, 3 * d, batch.tokens(), batch.position_ids});
  // Below kMinBf16Keys keys the products are too small for bf16 to pay for its conversions (at 8
  // keys, base's attention took 1.5x as long with them; from 32 keys it took 0.75x).
  const auto in_bf16 = [&](int64_t keys) { return bf16_products_ && keys >= kMinBf16Keys; };
  bool any_in_bf16 = in_bf16(batch.seq);
  if (batch.runs) {
    any_in_bf16 = std::any_of(batch.runs->begin(), batch.runs->end(),
                              [&](const SequenceRun& run) { return in_bf16(run.length); });
  }
  uint16_t* qkv16 = nullptr;
  if (any_in_bf16) {
    const int64_t count = batch.tokens() * 3 * d;
    qkv16_.reserve(static_cast<size_t>(count + 1) / 2);
    qkv16 = reinterpret_cast<uint16_t*>(qkv16_.data());
    to_bf16_(qkv, count, qkv16);
  }
  if (batch.runs == nullptr) {
    attend(qkv, in_bf16(batch.seq) ? qkv16 : nullptr, batch.batch, batch.seq, batch.key_bias,
           batch.attention_probabilities, context);
    return;
  }
  // Packed: each run of equal-length sequences is a padding-free batch of its own.
  for (const SequenceRun& run : *batch.runs) {
    const int64_t offset = run.first_row * 3 * d;
    attend(qkv + offset, in_bf16(run.length) ? qkv16 + offset : nullptr, run.count, run.length,
           nullptr, batch.attention_probabilities, context + run.first_row * d);
  }
}

void ScaledDotProductAttention::attend(const float* qkv, const uint16_t* qkv16, int64_t b,
                                       int64_t t, const float* key_bias,
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
               {b, 1, 1, t}, scores, qkv16, qkv16 ? qkv16 + d : nullptr);
  position_encoding_->add_score_bias(scores, b, t);
  const int64_t rows = b * h * t;
  const View4 out{context, {b, h, t, dh}, {t * d, dh, d, 1}};
  softmax_rows(scores, rows, t, scores);
  if (probabilities) probabilities->emplace_back(scores, scores + rows * t);
  core_.context(scores, heads_of(v), out, qkv16 ? qkv16 + 2 * d : nullptr);
}

}  // namespace tinyenc
