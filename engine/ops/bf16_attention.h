// Attention's two products with bf16 operands and f32 sums, our own kernels for CPUs with
// AVX512_BF16 dot products (vdpbf16ps): q, k, v and the probabilities are rounded to bf16 (to
// nearest even) head by head while they are packed, in cache, so no bf16 copy of q, k and v is
// made beforehand and no oneDNN primitive per (count, length) shape, of which a corpus meets
// hundreds. Each product is a register tile of sixteen-lane f32 sums, each lane one output. On
// AMD Zen 4, one thread, 12 heads of 64 (attention_bench, impl 3 against oneDNN's brgemm from
// bf16 planes made outside the timing, impl 1): scores at 32, 128 and 512 keys 12.0, 143, 2460
// against 9.3, 123, 2360 us, the context 11.1, 136, 2500 against 10.6, 132, 2530 us; in the
// attention layer, where the planes are made per call and each new length made two primitives,
// the corpus (bench --corpus, mini, one thread) ran 5 % faster in int8 and 3.5 % in bf16. Where
// nothing else reads the scores, bf16_attention() takes both products and the softmax between a
// block of query rows at a time, so that the scores never leave the cache (base at 512 tokens,
// int8: attention 72-79 -> 66-68 ms). On a CPU with AMX, oneDNN's products use its tiles: the
// layer keeps them there.
//
// Over the strided views of short_attention.h (heads read in place in fused QKV rows, the
// context written in place into [B, T, H, Dh]), for q, k, v of [B, H, T, Dh]:
//   scores[b, h, i, j] = scale * sum_c bf16(q[i][c]) bf16(k[j][c]) + key_bias[b, j]
//   context[b, h, i, c] = sum_j bf16(p[i][j]) bf16(v[j][c])
// The products of two bf16 values are exact in f32; the sums are f32 (the CPU's dot-product
// instruction adds a pair of products to each lane at a time, flushing subnormals), in an order
// of their own: the results agree with a double-precision sum of the same bf16 operands to a few
// f32 roundings of the sum of the terms' magnitudes, as oneDNN's bf16 products do.
#pragma once

#include <cstdint>

#include "engine/ops/short_attention.h"
#include "engine/ops/view.h"

namespace tinyenc {

// Whether the kernels run here: on x86 with avx512 active and AVX512_BF16 on the CPU.
bool bf16_attention_available();

// As short_attention_scores and short_attention_context, with bf16 operands.
void bf16_attention_scores(const View4& q, const View4& k, float scale, const float* key_bias,
                           float* scores);
void bf16_attention_context(const float* probabilities, const View4& v, const View4& context);
// softmax_rows(scores) (bit for bit) and then bf16_attention_context, the probabilities rounded
// as each row is made, in cache: they are not stored, and scores stays as it was.
void bf16_attention_softmax_context(const float* scores, const View4& v, const View4& context);
// All three in turn (bit for bit), head by head and a block of query rows at a time, so that a
// block's scores never leave the core's cache: nothing is stored but the context.
void bf16_attention(const View4& q, const View4& k, const View4& v, float scale,
                    const float* key_bias, const View4& context);

// One head's products: the scratch is the thread's, grown as needed.
namespace avx512_bf16 {
struct Scratch;
Scratch* thread_scratch();
void head_scores(const HeadScores& head, Scratch& scratch);
// What head.probabilities holds: the probabilities, or the scores they are the softmax of.
enum class Rows { kProbabilities, kScores };
void head_context(const HeadContext& head, Rows rows, Scratch& scratch);
// Both, with the softmax between, for one head: scores.scores and context.probabilities unused.
void head_attention(const HeadScores& scores, const HeadContext& context, Scratch& scratch);
}  // namespace avx512_bf16

}  // namespace tinyenc
