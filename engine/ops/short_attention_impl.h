// The vector kernels of short_attention.h, written once for a lane type V (short_attention_avx2.cc
// and short_attention_avx512.cc instantiate them with their own flags). V is a lane type of
// engine/pe/vec_<isa>.h (Reg, kWidth, zero, load, store, set1, fmadd, mul, add) with Mask,
// first_lanes(n), masked_load(p, mask) (zeros outside the mask), store_first(p, v, n) (lanes 0 to
// n - 1 by plain stores: what a masked store wrote is slow to load back on AMD Zen) and the
// register tiles added: kScoreRows x kScoreVectors scores and kContextRows x kContextVectors
// context values, sized so that the sums, the loaded operands and a broadcast stay in its
// registers.
//
// Every lane computes one output's sum in the specification's order, so the result does not
// depend on the tile: rows past the end are computed from the last row again and not stored, keys
// past the end from zero columns and not stored.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "engine/ops/short_attention.h"

namespace tinyenc::short_attention_impl {

// tile(first, std::integral_constant<int, n>{}) over `vectors` vectors: tiles of Most vectors,
// then one of the remainder.
template <int Most, class Tile>
void for_each_tile(int64_t vectors, Tile&& tile) {
  int64_t v = 0;
  for (; v + Most <= vectors; v += Most) tile(v, std::integral_constant<int, Most>{});
  if constexpr (Most > 1) {
    const int64_t rest = vectors - v;
    if (rest > 0) {
      for_each_tile<Most - 1>(rest, [&](int64_t first, auto n) { tile(v + first, n); });
    }
  }
}

template <class V, int Rows, int Vectors>
void score_tile(const HeadScores& head, const float* packed, int64_t width, int64_t row,
                int64_t first_vector) {
  using Reg = typename V::Reg;
  const float* q[Rows];
#pragma GCC unroll 16
  for (int r = 0; r < Rows; ++r) q[r] = head.q + std::min(row + r, head.t - 1) * head.q_stride;
  Reg sum[Rows][Vectors];
#pragma GCC unroll 16
  for (int r = 0; r < Rows; ++r) {
#pragma GCC unroll 16
    for (int v = 0; v < Vectors; ++v) sum[r][v] = V::zero();
  }
  const float* columns = packed + first_vector * V::kWidth;
  for (int64_t c = 0; c < head.dh; ++c) {
    const float* column = columns + c * width;
    Reg keys[Vectors];
#pragma GCC unroll 16
    for (int v = 0; v < Vectors; ++v) keys[v] = V::load(column + v * V::kWidth);
#pragma GCC unroll 16
    for (int r = 0; r < Rows; ++r) {
      const Reg query = V::set1(q[r][c]);
#pragma GCC unroll 16
      for (int v = 0; v < Vectors; ++v) sum[r][v] = V::fmadd(query, keys[v], sum[r][v]);
    }
  }
  const Reg scale = V::set1(head.scale);
#pragma GCC unroll 16
  for (int v = 0; v < Vectors; ++v) {
    const int64_t key = (first_vector + v) * V::kWidth;
    const int64_t count = std::min<int64_t>(V::kWidth, head.t - key);
    const bool whole = count == V::kWidth;
    const auto inside = V::first_lanes(count);
    Reg bias = V::zero();
    if (head.key_bias) bias = V::masked_load(head.key_bias + key, inside);
// (Every r tested, not the loop cut short: the sums then stay in registers.)
#pragma GCC unroll 16
    for (int r = 0; r < Rows; ++r) {
      if (row + r >= head.t) continue;
      Reg score = V::mul(sum[r][v], scale);
      if (head.key_bias) score = V::add(score, bias);
      float* out = head.scores + (row + r) * head.t + key;
      if (whole) {
        V::store(out, score);
      } else {
        V::store_first(out, score, count);
      }
    }
  }
}

template <class V>
void head_scores(const HeadScores& head, float* packed) {
  // k transposed, [dh, width], its keys rounded up to whole vectors (the columns past t are
  // the caller's zeros).
  const int64_t vectors = (head.t + V::kWidth - 1) / V::kWidth, width = vectors * V::kWidth;
  for (int64_t j = 0; j < head.t; ++j) {
    const float* key = head.k + j * head.k_stride;
    for (int64_t c = 0; c < head.dh; ++c) packed[c * width + j] = key[c];
  }
  constexpr int kRows = V::kScoreRows;
  for (int64_t row = 0; row < head.t; row += kRows) {
    for_each_tile<V::kScoreVectors>(vectors, [&](int64_t v, auto tile_vectors) {
      score_tile<V, kRows, decltype(tile_vectors)::value>(head, packed, width, row, v);
    });
  }
}

template <class V, int Rows, int Vectors, bool Tail>
void context_tile(const HeadContext& head, int64_t row, int64_t first_vector) {
  using Reg = typename V::Reg;
  const float* p[Rows];
#pragma GCC unroll 16
  for (int r = 0; r < Rows; ++r) {
    p[r] = head.probabilities + std::min(row + r, head.t - 1) * head.t;
  }
  int64_t count[Vectors];
  typename V::Mask inside[Vectors];
#pragma GCC unroll 16
  for (int v = 0; v < Vectors; ++v) {
    count[v] = std::min<int64_t>(V::kWidth, head.dh - (first_vector + v) * V::kWidth);
    inside[v] = V::first_lanes(count[v]);
  }
  Reg sum[Rows][Vectors];
#pragma GCC unroll 16
  for (int r = 0; r < Rows; ++r) {
#pragma GCC unroll 16
    for (int v = 0; v < Vectors; ++v) sum[r][v] = V::zero();
  }
  for (int64_t j = 0; j < head.t; ++j) {
    const float* values = head.v + j * head.v_stride + first_vector * V::kWidth;
    Reg value[Vectors];
#pragma GCC unroll 16
    for (int v = 0; v < Vectors; ++v) {
      if constexpr (Tail) {
        value[v] = V::masked_load(values + v * V::kWidth, inside[v]);
      } else {
        value[v] = V::load(values + v * V::kWidth);
      }
    }
#pragma GCC unroll 16
    for (int r = 0; r < Rows; ++r) {
      const Reg probability = V::set1(p[r][j]);
#pragma GCC unroll 16
      for (int v = 0; v < Vectors; ++v) sum[r][v] = V::fmadd(probability, value[v], sum[r][v]);
    }
  }
#pragma GCC unroll 16
  for (int r = 0; r < Rows; ++r) {
    if (row + r >= head.t) continue;
    float* out = head.context + (row + r) * head.context_stride + first_vector * V::kWidth;
#pragma GCC unroll 16
    for (int v = 0; v < Vectors; ++v) {
      if constexpr (Tail) {
        V::store_first(out + v * V::kWidth, sum[r][v], count[v]);
      } else {
        V::store(out + v * V::kWidth, sum[r][v]);
      }
    }
  }
}

template <class V>
void head_context(const HeadContext& head) {
  const int64_t vectors = (head.dh + V::kWidth - 1) / V::kWidth;
  constexpr int kRows = V::kContextRows;
  for (int64_t row = 0; row < head.t; row += kRows) {
    for_each_tile<V::kContextVectors>(vectors, [&](int64_t v, auto tile_vectors) {
      constexpr int kVectors = decltype(tile_vectors)::value;
      if ((v + kVectors) * V::kWidth > head.dh) {
        context_tile<V, kRows, kVectors, true>(head, row, v);
      } else {
        context_tile<V, kRows, kVectors, false>(head, row, v);
      }
    });
  }
}

}  // namespace tinyenc::short_attention_impl
