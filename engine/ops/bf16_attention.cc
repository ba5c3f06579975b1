#include "engine/ops/bf16_attention.h"

#include "engine/isa.h"
#include "engine/parallel_rows.h"

namespace tinyenc {
namespace {

// Below this many multiply-adds a pass is not worth waking a second thread for.
constexpr int64_t kMinParallelWork = 1 << 16;

const float* row_of(const View4& view, int64_t b, int64_t h) {
  return view.data + b * view.strides[0] + h * view.strides[1];
}

}  // namespace

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
  const int64_t heads = q.dims[1], t = q.dims[2], dh = q.dims[3], count = q.dims[0] * heads;
  parallel_rows(count, count * t * t * dh, kMinParallelWork, [&](int64_t begin, int64_t end) {
    avx512_bf16::Scratch& scratch = *avx512_bf16::thread_scratch();
    for (int64_t head = begin; head < end; ++head) {
      const int64_t b = head / heads, h = head % heads;
      avx512_bf16::head_scores(
          {row_of(q, b, h), q.strides[2], row_of(k, b, h), k.strides[2], t, dh, scale,
           key_bias ? key_bias + b * t : nullptr, scores + head * t * t},
          scratch);
    }
  });
}

namespace {

void contexts(const float* rows, avx512_bf16::Rows kind, const View4& v, const View4& context) {
  const int64_t heads = v.dims[1], t = v.dims[2], dh = v.dims[3], count = v.dims[0] * heads;
  parallel_rows(count, count * t * t * dh, kMinParallelWork, [&](int64_t begin, int64_t end) {
    avx512_bf16::Scratch& scratch = *avx512_bf16::thread_scratch();
    for (int64_t head = begin; head < end; ++head) {
      const int64_t b = head / heads, h = head % heads;
      avx512_bf16::head_context({rows + head * t * t, row_of(v, b, h), v.strides[2], t, dh,
                                 const_cast<float*>(row_of(context, b, h)), context.strides[2]},
                                kind, scratch);
    }
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
  const int64_t heads = q.dims[1], t = q.dims[2], dh = q.dims[3], count = q.dims[0] * heads;
  parallel_rows(count, 2 * count * t * t * dh, kMinParallelWork, [&](int64_t begin, int64_t end) {
    avx512_bf16::Scratch& scratch = *avx512_bf16::thread_scratch();
    for (int64_t head = begin; head < end; ++head) {
      const int64_t b = head / heads, h = head % heads;
      avx512_bf16::head_attention({row_of(q, b, h), q.strides[2], row_of(k, b, h), k.strides[2], t,
                                   dh, scale, key_bias ? key_bias + b * t : nullptr, nullptr},
                                  {nullptr, row_of(v, b, h), v.strides[2], t, dh,
                                   const_cast<float*>(row_of(context, b, h)), context.strides[2]},
                                  scratch);
    }
  });
}

#else

void bf16_attention_scores(const View4&, const View4&, float, const float*, float*) {}
void bf16_attention_context(const float*, const View4&, const View4&) {}
void bf16_attention_softmax_context(const float*, const View4&, const View4&) {}
void bf16_attention(const View4&, const View4&, const View4&, float, const float*, const View4&) {}

#endif

}  // namespace tinyenc
