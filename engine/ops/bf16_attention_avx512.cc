// AVX512_BF16 kernels of bf16_attention.h; compiled with -mavx512f -mavx512bf16, called only where
// the active ISA is avx512 and the CPU has AVX512_BF16.
//
// vdpbf16ps adds to each f32 lane the products of one pair of bf16 values: the operands are packed
// so that each 32-bit word holds a pair along the summed axis. Scores: q's row i as words of
// (q[i][2p], q[i][2p+1]), broadcast; k transposed as [Dh / 2][keys] words, sixteen keys a vector.
// Context: the probabilities' row i as words of (p[i][2m], p[i][2m+1]) (a bf16 row as it lies in
// memory), broadcast; v as [T / 2][Dh] words of (v[2m][c], v[2m + 1][c]), sixteen values a vector.
// Odd counts are completed with zeros.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "engine/ops/bf16_attention.h"
#include "engine/ops/lanes_avx512.h"
#include "engine/ops/short_attention_impl.h"
#include "engine/ops/softmax_rows.h"

namespace tinyenc::avx512_bf16 {

struct Scratch {
  std::vector<uint32_t> queries;        // q's rows as bf16 pairs
  std::vector<uint32_t> keys;           // k transposed, as bf16 pairs
  std::vector<uint32_t> values;         // v, as bf16 pairs of rows
  std::vector<uint32_t> probabilities;  // the probabilities' rows as bf16 pairs
  std::vector<uint32_t> staging;        // sixteen keys' pairs, before they are transposed
  std::vector<float> scores;            // a block of query rows' scores (fused attention)
  std::vector<float> row;               // one row of probabilities, before it is paired
};

Scratch* thread_scratch() {
  thread_local Scratch scratch;
  return &scratch;
}

namespace {

using avx512::first_lanes;
using avx512::store_first;
using short_attention_impl::for_each_tile;

inline __m512 dot(__m512 sum, __m512i a, __m512i b) {
  return _mm512_dpbf16_ps(sum, reinterpret_cast<__m512bh>(a), reinterpret_cast<__m512bh>(b));
}

// Sixteen floats rounded to bf16 (to nearest even), as sixteen 16-bit values.
inline __m256i bf16_of(__m512 v) { return reinterpret_cast<__m256i>(_mm512_cvtneps_pbh(v)); }

// r[i][j] <- r[j][i], sixteen 32-bit words by sixteen.
inline void transpose(__m512i r[16]) {
  __m512i t[16];
#pragma GCC unroll 16
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_epi32(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_epi32(r[i], r[i + 1]);
  }
#pragma GCC unroll 16
  for (int i = 0; i < 16; i += 4) {
    r[i] = _mm512_unpacklo_epi64(t[i], t[i + 2]);
    r[i + 1] = _mm512_unpackhi_epi64(t[i], t[i + 2]);
    r[i + 2] = _mm512_unpacklo_epi64(t[i + 1], t[i + 3]);
    r[i + 3] = _mm512_unpackhi_epi64(t[i + 1], t[i + 3]);
  }
  // 128-bit lanes: 0x88 takes lanes 0 and 2 of each operand, 0xdd lanes 1 and 3.
#pragma GCC unroll 16
  for (int i = 0; i < 4; ++i) {
    t[i] = _mm512_shuffle_i32x4(r[i], r[i + 4], 0x88);
    t[i + 4] = _mm512_shuffle_i32x4(r[i], r[i + 4], 0xdd);
    t[i + 8] = _mm512_shuffle_i32x4(r[i + 8], r[i + 12], 0x88);
    t[i + 12] = _mm512_shuffle_i32x4(r[i + 8], r[i + 12], 0xdd);
  }
#pragma GCC unroll 16
  for (int i = 0; i < 8; ++i) {
    r[i] = _mm512_shuffle_i32x4(t[i], t[i + 8], 0x88);
    r[i + 8] = _mm512_shuffle_i32x4(t[i], t[i + 8], 0xdd);
  }
}

// n floats (n >= 0) as (n + 1) / 2 words of bf16 pairs, the last one completed with a zero.
void pairs_of(const float* values, int64_t n, uint32_t* words) {
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512 low = _mm512_loadu_ps(values + i), high = _mm512_loadu_ps(values + i + 16);
    _mm512_storeu_si512(words + i / 2, reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(high, low)));
  }
  if (i < n) {
    const int64_t rest = n - i;
    const __m512 low = _mm512_maskz_loadu_ps(first_lanes(std::min<int64_t>(16, rest)), values + i);
    const __m512 high =
        _mm512_maskz_loadu_ps(first_lanes(std::clamp<int64_t>(rest - 16, 0, 16)), values + i + 16);
    const __m512i pairs = reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(high, low));
    store_first(words + i / 2, pairs, (rest + 1) / 2);
  }
}

// The sums of a tile: rows `row` to `row + Rows - 1` of `left` ([t][pairs] words, each row's
// pairs broadcast; rows past t - 1 read row t - 1 again, their sums then unused) against
// `Vectors` vectors of `right` ([pairs][width] words) from column `first_column`.
struct TileOperands {
  const uint32_t* left;
  int64_t t, pairs;
  const uint32_t* right;
  int64_t width;
};

template <int Rows, int Vectors>
__attribute__((always_inline)) inline void tile_sums(const TileOperands& in, int64_t row,
                                                     int64_t first_column,
                                                     __m512 (&sum)[Rows][Vectors]) {
  const uint32_t* left[Rows];
#pragma GCC unroll 16
  for (int r = 0; r < Rows; ++r) left[r] = in.left + std::min(row + r, in.t - 1) * in.pairs;
#pragma GCC unroll 16
  for (int r = 0; r < Rows; ++r) {
#pragma GCC unroll 16
    for (int v = 0; v < Vectors; ++v) sum[r][v] = _mm512_setzero_ps();
  }
  const uint32_t* columns = in.right + first_column;
  for (int64_t p = 0; p < in.pairs; ++p) {
    __m512i right[Vectors];
#pragma GCC unroll 16
    for (int v = 0; v < Vectors; ++v)
      right[v] = _mm512_loadu_si512(columns + p * in.width + v * 16);
#pragma GCC unroll 16
    for (int r = 0; r < Rows; ++r) {
      const __m512i broadcast = _mm512_set1_epi32(static_cast<int>(left[r][p]));
#pragma GCC unroll 16
      for (int v = 0; v < Vectors; ++v) sum[r][v] = dot(sum[r][v], broadcast, right[v]);
    }
  }
}

// Rows `row`.. of in.left (in.t of them) against keys from 16 first_vector on; row r's scores at
// scores + r * head.t.
template <int Rows, int Vectors>
void score_tile(const HeadScores& head, const TileOperands& in, int64_t row, int64_t first_vector,
                float* scores) {
  __m512 sum[Rows][Vectors];
  tile_sums<Rows, Vectors>(in, row, first_vector * 16, sum);
  const __m512 scale = _mm512_set1_ps(head.scale);
#pragma GCC unroll 16
  for (int v = 0; v < Vectors; ++v) {
    const int64_t key = (first_vector + v) * 16, count = std::min<int64_t>(16, head.t - key);
    const __mmask16 inside = first_lanes(count);
    __m512 bias = _mm512_setzero_ps();
    if (head.key_bias) bias = _mm512_maskz_loadu_ps(inside, head.key_bias + key);
#pragma GCC unroll 16
    for (int r = 0; r < Rows; ++r) {
      if (row + r >= in.t) continue;
      __m512 score = _mm512_mul_ps(sum[r][v], scale);
      if (head.key_bias) score = _mm512_add_ps(score, bias);
      float* out = scores + (row + r) * head.t + key;
      if (count == 16) {
        _mm512_storeu_ps(out, score);
      } else {
        store_first(out, score, count);
      }
    }
  }
}

template <int Rows, int Vectors, bool Tail>
void context_tile(const HeadContext& head, const TileOperands& in, int64_t row,
                  int64_t first_vector) {
  __m512 sum[Rows][Vectors];
  tile_sums<Rows, Vectors>(in, row, first_vector * 16, sum);
#pragma GCC unroll 16
  for (int r = 0; r < Rows; ++r) {
    if (row + r >= head.t) continue;
    float* out = head.context + (row + r) * head.context_stride + first_vector * 16;
#pragma GCC unroll 16
    for (int v = 0; v < Vectors; ++v) {
      if constexpr (Tail) {
        const int64_t c = (first_vector + v) * 16;
        store_first(out + v * 16, sum[r][v], std::min<int64_t>(16, head.dh - c));
      } else {
        _mm512_storeu_ps(out + v * 16, sum[r][v]);
      }
    }
  }
}

// t rows of n floats, `stride` apart, as [t][(n + 1) / 2] words of bf16 pairs in `to`; with
// `softmax`, each row's softmax (softmax_rows.h's AVX-512 row, in the thread's cache).
const uint32_t* rows_as_pairs(const float* rows, int64_t stride, int64_t t, int64_t n, bool softmax,
                              std::vector<uint32_t>& to, Scratch& scratch) {
  const int64_t pairs = (n + 1) / 2;
  to.resize(static_cast<size_t>(t * pairs + 16));
  if (softmax) scratch.row.resize(static_cast<size_t>(n));
  uint32_t* words = to.data();
  for (int64_t i = 0; i < t; ++i) {
    const float* row = rows + i * stride;
    if (softmax) {
      avx512::softmax_row(row, n, scratch.row.data());
      row = scratch.row.data();
    }
    pairs_of(row, n, words + i * pairs);
  }
  return words;
}

// k transposed: [pairs][width] words, key j's pairs in column j (sixteen keys at a time, their
// pairs transposed sixteen by sixteen in registers); the columns past t are zero.
const uint32_t* pack_keys(const HeadScores& head, int64_t width, Scratch& scratch) {
  const int64_t pairs = (head.dh + 1) / 2, padded_pairs = (pairs + 15) / 16 * 16;
  scratch.keys.resize(static_cast<size_t>(pairs * width + 16));
  scratch.staging.resize(static_cast<size_t>(16 * padded_pairs));
  uint32_t* keys = scratch.keys.data();
  uint32_t* staging = scratch.staging.data();
  for (int64_t first = 0; first < width; first += 16) {
    for (int64_t j = 0; j < 16; ++j) {
      uint32_t* words = staging + j * padded_pairs;
      std::fill(words, words + padded_pairs, 0u);
      if (first + j < head.t) pairs_of(head.k + (first + j) * head.k_stride, head.dh, words);
    }
    for (int64_t p = 0; p < pairs; p += 16) {
      __m512i r[16];
#pragma GCC unroll 16
      for (int j = 0; j < 16; ++j) r[j] = _mm512_loadu_si512(staging + j * padded_pairs + p);
      transpose(r);
      for (int64_t i = 0; i < std::min<int64_t>(16, pairs - p); ++i) {
        _mm512_storeu_si512(keys + (p + i) * width + first, r[i]);
      }
    }
  }
  return keys;
}

// v as [(t + 1) / 2][width] words of pairs of rows: word (m, c) = (v[2m][c], v[2m + 1][c]); past
// dh, and for the missing row 2m + 1 of an odd count, zeros.
const uint32_t* pack_values(const HeadContext& head, int64_t width, Scratch& scratch) {
  const int64_t pairs = (head.t + 1) / 2;
  scratch.values.resize(static_cast<size_t>(pairs * width + 16));
  uint32_t* values = scratch.values.data();
  for (int64_t m = 0; m < pairs; ++m) {
    const float* even = head.v + 2 * m * head.v_stride;
    const float* odd = 2 * m + 1 < head.t ? even + head.v_stride : nullptr;
    for (int64_t c = 0; c < width; c += 16) {
      const __mmask16 inside = first_lanes(std::clamp<int64_t>(head.dh - c, 0, 16));
      const __m512i low = _mm512_cvtepu16_epi32(bf16_of(_mm512_maskz_loadu_ps(inside, even + c)));
      __m512i word = low;
      if (odd) {
        const __m512i high = _mm512_cvtepu16_epi32(bf16_of(_mm512_maskz_loadu_ps(inside, odd + c)));
        word = _mm512_or_si512(low, _mm512_slli_epi32(high, 16));
      }
      _mm512_storeu_si512(values + m * width + c, word);
    }
  }
  return values;
}

constexpr int kScoreRows = 4, kScoreVectors = 4;
constexpr int kContextRows = 4, kContextVectors = 4;

// Every score of in's rows, row r's at scores + r * head.t.
void score_rows(const HeadScores& head, const TileOperands& in, float* scores) {
  for (int64_t row = 0; row < in.t; row += kScoreRows) {
    for_each_tile<kScoreVectors>((head.t + 15) / 16, [&](int64_t v, auto tile_vectors) {
      score_tile<kScoreRows, decltype(tile_vectors)::value>(head, in, row, v, scores);
    });
  }
}

// Every context value of head.t rows, from in's rows of probability pairs.
void context_rows(const HeadContext& head, const TileOperands& in) {
  const int64_t vectors = (head.dh + 15) / 16;
  for (int64_t row = 0; row < head.t; row += kContextRows) {
    for_each_tile<kContextVectors>(vectors, [&](int64_t v, auto tile_vectors) {
      constexpr int kVectors = decltype(tile_vectors)::value;
      if ((v + kVectors) * 16 > head.dh) {
        context_tile<kContextRows, kVectors, true>(head, in, row, v);
      } else {
        context_tile<kContextRows, kVectors, false>(head, in, row, v);
      }
    });
  }
}

// Query rows per block of the fused attention: their scores (f32) about 64 KB, so that they, the
// probabilities' pairs and the packed k and v stay in the core's L2.
int64_t block_rows(int64_t t) {
  const int64_t rows = std::max<int64_t>(kScoreRows, (16384 / t) / kScoreRows * kScoreRows);
  return std::min(rows, (t + kScoreRows - 1) / kScoreRows * kScoreRows);
}

}  // namespace

void head_scores(const HeadScores& head, Scratch& scratch) {
  const int64_t pairs = (head.dh + 1) / 2, width = (head.t + 15) / 16 * 16;
  const uint32_t* queries =
      rows_as_pairs(head.q, head.q_stride, head.t, head.dh, false, scratch.queries, scratch);
  const uint32_t* keys = pack_keys(head, width, scratch);
  score_rows(head, {queries, head.t, pairs, keys, width}, head.scores);
}

void head_context(const HeadContext& head, Rows rows, Scratch& scratch) {
  const int64_t pairs = (head.t + 1) / 2, width = (head.dh + 15) / 16 * 16;
  const uint32_t* probabilities =
      rows_as_pairs(head.probabilities, head.t, head.t, head.t, rows == Rows::kScores,
                    scratch.probabilities, scratch);
  const uint32_t* values = pack_values(head, width, scratch);
  context_rows(head, {probabilities, head.t, pairs, values, width});
}

void head_attention(const HeadScores& scores, const HeadContext& context, Scratch& scratch) {
  const int64_t t = scores.t, dh = scores.dh, pairs = (dh + 1) / 2, key_pairs = (t + 1) / 2;
  const int64_t key_width = (t + 15) / 16 * 16, value_width = (dh + 15) / 16 * 16;
  const uint32_t* queries =
      rows_as_pairs(scores.q, scores.q_stride, t, dh, false, scratch.queries, scratch);
  const uint32_t* keys = pack_keys(scores, key_width, scratch);
  const uint32_t* values = pack_values(context, value_width, scratch);
  const int64_t block = block_rows(t);
  scratch.scores.resize(static_cast<size_t>(block * t));
  for (int64_t first = 0; first < t; first += block) {
    const int64_t rows = std::min(block, t - first);
    score_rows(scores, {queries + first * pairs, rows, pairs, keys, key_width},
               scratch.scores.data());
    const uint32_t* probabilities =
        rows_as_pairs(scratch.scores.data(), t, rows, t, true, scratch.probabilities, scratch);
    HeadContext part = context;
    part.t = rows;
    part.context = context.context + first * context.context_stride;
    context_rows(part, {probabilities, rows, key_pairs, values, value_width});
  }
}

}  // namespace tinyenc::avx512_bf16
