#include "engine/layers/scaled_dot_product_attention.h"

#include <algorithm>
#include <cmath>

#include "engine/dtype.h"
#include "engine/ops/bf16_attention.h"
#include "engine/ops/short_attention.h"
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
      own_bf16_(bf16_products && bf16_attention_available() && !cpu_features().amx_bf16),
      to_bf16_(runtime) {}

void ScaledDotProductAttention::operator()(float* qkv, const Batch& batch, float* context) {
  const int64_t d = heads_ * head_dim_;
  // RoPE rotates every row by its own position id, whatever the layout.
  position_encoding_->rotate_queries_keys(
      {qkv, qkv + d, 3 * d, batch.tokens(), batch.position_ids});
  // Below kMinBf16Keys keys the products are too small for bf16 to pay for its conversions (at 8
  // keys, base's attention took 1.5x as long with them; from 32 keys it took 0.75x).
  const auto in_bf16 = [&](int64_t keys) { return bf16_products_ && keys >= kMinBf16Keys; };
  // oneDNN's bf16 products read q, k and v from bf16 copies made here; our own kernels round
  // each head as they pack it.
  const auto from_planes = [&](int64_t keys) { return in_bf16(keys) && !own_bf16_; };
  bool any_from_planes = from_planes(batch.seq);
  if (batch.runs) {
    any_from_planes = std::any_of(batch.runs->begin(), batch.runs->end(),
                                  [&](const SequenceRun& run) { return from_planes(run.length); });
  }
  // The copies are three dense planes [3, tokens, d]: oneDNN 2.6 multiplies strided bf16 heads
  // with its gemm:jit, dense ones with its brgemm kernels (on AMX, 12 heads of 128 keys: q k^T
  // 1118 -> 43 us, the context 106 -> 41 us).
  const int64_t tokens = batch.tokens();
  uint16_t* qkv16 = nullptr;
  if (any_from_planes) {
    const int64_t count = tokens * 3 * d;
    qkv16_.reserve(static_cast<size_t>(count + 1) / 2);
    qkv16 = reinterpret_cast<uint16_t*>(qkv16_.data());
    to_bf16_.planes(qkv, tokens, 3, d, qkv16);
  }
  if (batch.runs == nullptr) {
    attend(qkv, in_bf16(batch.seq), from_planes(batch.seq) ? qkv16 : nullptr, tokens * d,
           batch.batch, batch.seq, batch.key_bias, batch.attention_probabilities, context);
    return;
  }
  // Packed: each run of equal-length sequences is a padding-free batch of its own.
  for (const SequenceRun& run : *batch.runs) {
    attend(qkv + run.first_row * 3 * d, in_bf16(run.length),
           from_planes(run.length) ? qkv16 + run.first_row * d : nullptr, tokens * d, run.count,
           run.length, nullptr, batch.attention_probabilities, context + run.first_row * d);
  }
}

void ScaledDotProductAttention::attend(const float* qkv, bool bf16, const uint16_t* q16,
                                       int64_t plane, int64_t b, int64_t t, const float* key_bias,
                                       std::vector<std::vector<float>>* probabilities,
                                       float* context) {
  const int64_t h = heads_, dh = head_dim_, d = h * dh;
  const float* q = qkv;
  const float* k = qkv + d;
  const float* v = qkv + 2 * d;
  const auto heads_of = [&](const float* base) {
    return View4{base, {b, h, t, dh}, {t * 3 * d, dh, 3 * d, 1}};
  };
  // The bf16 planes: plane p of q16's rows starts p * plane elements on.
  const auto heads16_of = [&](int64_t p) {
    return q16 ? View4Bf16{q16 + p * plane, {t * d, dh, d, 1}} : View4Bf16{};
  };
  float* scores = scores_->data();
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
  const bool own_bf16 = bf16 && own_bf16_, own_f32 = !bf16 && t <= short_attention_max_keys();
  if (own_bf16 && probabilities == nullptr && !position_encoding_->adds_score_bias()) {
    // Scores, softmax and context a block of query rows at a time: no scores leave the cache.
    bf16_attention(heads_of(q), heads_of(k), heads_of(v), scale, key_bias,
                   {context, {b, h, t, dh}, {t * d, dh, d, 1}});
    return;
  }
  if (own_bf16) {
    bf16_attention_scores(heads_of(q), heads_of(k), scale, key_bias, scores);
  } else if (own_f32) {
    short_attention_scores(heads_of(q), heads_of(k), scale, key_bias, scores);
  } else {
    core_.scores(heads_of(q), heads_of(k), scale, key_bias, {b, 1, 1, t}, scores, heads16_of(0),
                 heads16_of(1));
  }
  position_encoding_->add_score_bias(scores, b, t);
  const int64_t rows = b * h * t;
  const View4 out{context, {b, h, t, dh}, {t * d, dh, d, 1}};
  if (own_bf16 && probabilities == nullptr) {
    // The softmax row by row inside the product, each row rounded to bf16 while in cache.
    bf16_attention_softmax_context(scores, heads_of(v), out);
    return;
  }
  softmax_rows(scores, rows, t, scores);
  if (probabilities) probabilities->emplace_back(scores, scores + rows * t);
  if (own_bf16) {
    bf16_attention_context(scores, heads_of(v), out);
  } else if (own_f32) {
    short_attention_context(scores, heads_of(v), out);
  } else {
    core_.context(scores, heads_of(v), out, heads16_of(2));
  }
}

}  // namespace tinyenc
