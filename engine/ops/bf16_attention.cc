#include "engine/ops/bf16_attention.h"

#include "engine/isa.h"
#include "engine/ops/attention_heads.h"

namespace tinyenc {

bool bf16_attention_available() {
#if defined(__x86_64__)
  static const bool available = active_isa() == Isa::kAvx512 && cpuid_features().avx512_bf16;
  return available;
#else
  return false;
#endif
}

#if defined(__x86_64__)

void bf16_attention_scores(const View4& q, const View4& k, float scale, const float* key_bias,
                           float* scores) {
  const int64_t t = q.dims[2], dh = q.dims[3];
  for_each_head(q, t * t * dh, avx512_bf16::thread_scratch,
                [&](avx512_bf16::Scratch* scratch, int64_t head, int64_t b, int64_t h) {
                  avx512_bf16::head_scores(
                      {head_rows(q, b, h), q.strides[2], head_rows(k, b, h), k.strides[2], t, dh,
                       scale, key_bias ? key_bias + b * t : nullptr, scores + head * t * t},
                      *scratch);
                });
}

namespace {

void contexts(const float* rows, avx512_bf16::Rows kind, const View4& v, const View4& context) {
  const int64_t t = v.dims[2], dh = v.dims[3];
  for_each_head(v, t * t * dh, avx512_bf16::thread_scratch,
                [&](avx512_bf16::Scratch* scratch, int64_t head, int64_t b, int64_t h) {
                  avx512_bf16::head_context(
                      {rows + head * t * t, head_rows(v, b, h), v.strides[2], t, dh,
                       writable_head_rows(context, b, h), context.strides[2]},
                      kind, *scratch);
                });
}

}  // namespace

void bf16_attention_context(const float* probabilities, const View4& v, const View4& context) {
  contexts(probabilities, avx512_bf16::Rows::kProbabilities, v, context);
}

void bf16_attention_softmax_context(const float* scores, const View4& v, const View4& context) {
  contexts(scores, avx512_bf16::Rows::kScores, v, context);
}

void bf16_attention(const View4& q, const View4& k, const View4& v, float scale,
                    const float* key_bias, const View4& context) {
  const int64_t t = q.dims[2], dh = q.dims[3];
  for_each_head(q, 2 * t * t * dh, avx512_bf16::thread_scratch,
                [&](avx512_bf16::Scratch* scratch, int64_t, int64_t b, int64_t h) {
                  avx512_bf16::head_attention(
                      {head_rows(q, b, h), q.strides[2], head_rows(k, b, h), k.strides[2], t, dh,
                       scale, key_bias ? key_bias + b * t : nullptr, nullptr},
                      {nullptr, head_rows(v, b, h), v.strides[2], t, dh,
                       writable_head_rows(context, b, h), context.strides[2]},
                      *scratch);
                });
}

#else

void bf16_attention_scores(const View4&, const View4&, float, const float*, float*) {}
void bf16_attention_context(const float*, const View4&, const View4&) {}
void bf16_attention_softmax_context(const float*, const View4&, const View4&) {}
void bf16_attention(const View4&, const View4&, const View4&, float, const float*, const View4&) {}

#endif

}  // namespace tinyenc
