// Attention's two products for short sequences, our own kernels: no oneDNN primitive to make per
// (count, length) shape, of which a corpus meets hundreds, and no library call per product. On
// AMD Zen 4, one thread, 12 heads of 64 (attention_bench BM_Scores and BM_Context, impl 2
// against oneDNN's f32 gemm, impl 0): the scores at 8, 19, 32 and 64 keys 4.4, 22.2, 28.4, 98.3
// -> 4.0, 13.3, 21.2, 71.9 us, the context 5.6, 10.5, 20.2, 66.2 -> 1.1, 5.4, 14.2, 56.1 us; at
// 128 keys the scores 256 -> 283 us (oneDNN's blocking wins). Capped at AVX2 the context still
// leads (19 keys 9.9 -> 7.3 us) but the scores trail from 32 keys (20.7 -> 24.7 us): in the
// attention stage (`bench --config mini,base --seq 32,48,64 --dtype f32`, AVX2 cap) the context's
// lead still outweighs that at 32 keys (mini 0.085-0.096 -> 0.072-0.075 ms), no longer beyond
// (base at 64 keys 2.6-2.8 -> 3.3-3.4 ms). Hence short_attention_max_keys().
//
// Over strided views as ops::AttentionCore takes them (heads read in place in fused QKV rows, the
// context written in place into [B, T, H, Dh]), for q, k, v of [B, H, T, Dh]:
//   scores[b, h, i, j] = scale * s + key_bias[b, j]  (the bias only when given), with
//     s = fma(q[i][Dh-1], k[j][Dh-1], ... fma(q[i][1], k[j][1], fma(q[i][0], k[j][0], 0)))
//   context[b, h, i, c] = fma(p[i][T-1], v[T-1][c], ... fma(p[i][0], v[0][c], 0))
// where p is [B, H, T, T] dense: each sum in order, one fused multiply-add a step. The scalar
// functions are the specification; the AVX2 and AVX-512 ones agree with them bit for bit (each
// vector lane is one output's sum). Heads are split among the OpenMP threads.
#pragma once

#include <cstdint>

#include "engine/ops/view.h"

namespace tinyenc {

// Whether the short-attention kernels run here: on x86 with an AVX2 or wider active ISA (the
// scalar specification is no faster than oneDNN elsewhere).
bool short_attention_available();
// The most keys for which they beat oneDNN's f32 products under the active ISA (the attention
// stage as measured above): 64 under avx512, 32 under avx2; 0 where they are not available.
int64_t short_attention_max_keys();

// scores is dense [B, H, T, T]; key_bias, when not null, dense [B, T] (a key padding mask).
void short_attention_scores(const View4& q, const View4& k, float scale, const float* key_bias,
                            float* scores);
// context.data is written.
void short_attention_context(const float* probabilities, const View4& v, const View4& context);

// One head's products, in each ISA: q, k, v rows `*_stride` floats apart, t rows of dh values;
// scores and probabilities dense [t, t]; key_bias [t] or null. `packed` is scratch for k
// transposed: dh rows of short_attention_packed_width(t) floats, those past t zero (the vector
// versions write the first t of each row).
inline int64_t short_attention_packed_width(int64_t t) { return (t + 15) / 16 * 16; }
struct HeadScores {
  const float* q;
  int64_t q_stride;
  const float* k;
  int64_t k_stride;
  int64_t t, dh;
  float scale;
  const float* key_bias;
  float* scores;
};
struct HeadContext {
  const float* probabilities;
  const float* v;
  int64_t v_stride;
  int64_t t, dh;
  float* context;
  int64_t context_stride;
};

namespace scalar {
void head_scores(const HeadScores& head, float* packed);
void head_context(const HeadContext& head);
}  // namespace scalar

namespace avx2 {
void head_scores(const HeadScores& head, float* packed);
void head_context(const HeadContext& head);
}  // namespace avx2

namespace avx512 {
void head_scores(const HeadScores& head, float* packed);
void head_context(const HeadContext& head);
}  // namespace avx512

}  // namespace tinyenc
