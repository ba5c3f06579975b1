#include "engine/ops/short_attention.h"

#include <cmath>
#include <cstddef>
#include <vector>

#include "engine/isa.h"
#include "engine/ops/attention_heads.h"

namespace tinyenc {
namespace scalar {

void head_scores(const HeadScores& head, float* /*packed*/) {
  for (int64_t i = 0; i < head.t; ++i) {
    const float* q = head.q + i * head.q_stride;
    for (int64_t j = 0; j < head.t; ++j) {
      const float* k = head.k + j * head.k_stride;
      float sum = 0.0f;
      for (int64_t c = 0; c < head.dh; ++c) sum = std::fma(q[c], k[c], sum);
      float score = head.scale * sum;
      if (head.key_bias) score += head.key_bias[j];
      head.scores[i * head.t + j] = score;
    }
  }
}

void head_context(const HeadContext& head) {
  for (int64_t i = 0; i < head.t; ++i) {
    const float* p = head.probabilities + i * head.t;
    float* out = head.context + i * head.context_stride;
    for (int64_t c = 0; c < head.dh; ++c) {
      float sum = 0.0f;
      for (int64_t j = 0; j < head.t; ++j) sum = std::fma(p[j], head.v[j * head.v_stride + c], sum);
      out[c] = sum;
    }
  }
}

}  // namespace scalar

namespace {

using ScoresKernel = void (*)(const HeadScores&, float*);
using ContextKernel = void (*)(const HeadContext&);

// Up to 8 keys the AVX2 tiles score under avx512 too (the same bits): sixteen lanes would leave
// half of each vector empty (12 heads of 8 keys on AMD Zen 4: 6.3 -> 4.0 us).
ScoresKernel scores_kernel(int64_t t) {
#if defined(__x86_64__)
  if (active_isa() == Isa::kAvx512) return t <= 8 ? avx2::head_scores : avx512::head_scores;
  if (active_isa_runs_avx2()) return avx2::head_scores;
#endif
  return scalar::head_scores;
}

ContextKernel context_kernel() {
#if defined(__x86_64__)
  if (active_isa() == Isa::kAvx512) return avx512::head_context;
  if (active_isa_runs_avx2()) return avx2::head_context;
#endif
  return scalar::head_context;
}

}  // namespace

bool short_attention_available() {
#if defined(__x86_64__)
  return active_isa_runs_avx2();
#else
  return false;
#endif
}

int64_t short_attention_max_keys() {
  if (!short_attention_available()) return 0;
  return active_isa() == Isa::kAvx512 ? 64 : 32;
}

void short_attention_scores(const View4& q, const View4& k, float scale, const float* key_bias,
                            float* scores) {
  const int64_t t = q.dims[2], dh = q.dims[3];
  const ScoresKernel kernel = scores_kernel(t);
  // Each thread's k transposed, its columns past t zero for every head of the call.
  const auto packed = [&] {
    thread_local std::vector<float> buffer;
    buffer.assign(static_cast<size_t>(dh * short_attention_packed_width(t)), 0.0f);
    return buffer.data();
  };
  for_each_head(q, t * t * dh, packed, [&](float* packed, int64_t head, int64_t b, int64_t h) {
    kernel({head_rows(q, b, h), q.strides[2], head_rows(k, b, h), k.strides[2], t, dh, scale,
            key_bias ? key_bias + b * t : nullptr, scores + head * t * t},
           packed);
  });
}

void short_attention_context(const float* probabilities, const View4& v, const View4& context) {
  const int64_t t = v.dims[2], dh = v.dims[3];
  const ContextKernel kernel = context_kernel();
  const auto none = [] { return nullptr; };
  for_each_head(v, t * t * dh, none, [&](std::nullptr_t, int64_t head, int64_t b, int64_t h) {
    kernel({probabilities + head * t * t, head_rows(v, b, h), v.strides[2], t, dh,
            writable_head_rows(context, b, h), context.strides[2]});
  });
}

}  // namespace tinyenc
