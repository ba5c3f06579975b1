// The PE kernels, written once over a vector traits type V (vec_<isa>.h) and instantiated in one
// translation unit per ISA. Each including file defines TINYENC_PE_ISA_NAMESPACE so that every
// symbol here is distinct per ISA: code compiled with AVX-512 flags must never be merged by the
// linker with the baseline build of the same inline function.
//
// This header must not instantiate standard-library templates for the same reason (the kernels
// need no memory beyond their arguments).
//
// V provides: kWidth, Reg, load, store, stream (non-temporal store, kStreamAlignment-aligned),
// stream_fence, set1, zero, add, sub, mul, fmadd (a*b+c), fnmadd
// (c-a*b), reduce_add, swap_pairs ([x1,x0,x3,x2,..]), duplicate_pairs (loads kWidth/2 floats
// p0,p1,.. as [p0,p0,p1,p1,..]) and negate_even (flips the sign of lanes 0, 2, 4, ..).
#pragma once

#include <cmath>
#include <cstdint>

#include "engine/pe/kernel_table.h"

#ifndef TINYENC_PE_ISA_NAMESPACE
#error "define TINYENC_PE_ISA_NAMESPACE before including kernel_impl.h"
#endif

namespace tinyenc::detail::TINYENC_PE_ISA_NAMESPACE {

// ---------------------------------------------------------------------------------------------
// Embedding: gather x scale (+ position row) (+ token-type row) (-> LayerNorm).

constexpr int64_t kFloatsPerCacheLine = 16;

inline void prefetch_row(const float* row, int64_t d_model) {
  for (int64_t j = 0; j < d_model; j += kFloatsPerCacheLine) __builtin_prefetch(row + j);
}

template <class V, bool kHasPosition, bool kHasType>
inline typename V::Reg embedding_vector(const float* token_row, typename V::Reg scale,
                                        const float* position_row, const float* type_row,
                                        int64_t j) {
  typename V::Reg value = V::mul(V::load(token_row + j), scale);
  if constexpr (kHasPosition) value = V::add(value, V::load(position_row + j));
  if constexpr (kHasType) value = V::add(value, V::load(type_row + j));
  return value;
}

// Writes scale * token + position + type for one row; with kSum also returns the row's sum
// (LayerNorm's mean) taken on the way, in four independent accumulators so that the adds do not
// wait on each other. kStream writes the vectors with non-temporal stores (out aligned for them).
//
// next_token_row (may be null) is the next token's row: a random gather the hardware prefetcher
// cannot predict. The vector loop asks for it one cache line per line of this row, so that its
// misses overlap this row's work without a burst of requests that would hold up this row's own
// loads (with a whole row requested up front, a DRAM-sized gather ran 20-30% slower).
template <class V, bool kHasPosition, bool kHasType, bool kSum, bool kStream = false>
inline float sum_embedding_row(const float* token_row, float scale, const float* position_row,
                               const float* type_row, int64_t d_model, float* out,
                               const float* next_token_row) {
  const auto store = [](float* p, typename V::Reg v) {
    if constexpr (kStream) {
      V::stream(p, v);
    } else {
      V::store(p, v);
    }
  };
  using Reg = typename V::Reg;
  const Reg scale_v = V::set1(scale);
  constexpr int64_t W = V::kWidth;
  Reg sum0 = V::zero(), sum1 = V::zero(), sum2 = V::zero(), sum3 = V::zero();
  int64_t j = 0;
  for (; j + 4 * W <= d_model; j += 4 * W) {
    if (next_token_row != nullptr) {
      for (int64_t line = 0; line < 4 * W; line += kFloatsPerCacheLine) {
        __builtin_prefetch(next_token_row + j + line);
      }
    }
    const Reg v0 =
        embedding_vector<V, kHasPosition, kHasType>(token_row, scale_v, position_row, type_row, j);
    const Reg v1 = embedding_vector<V, kHasPosition, kHasType>(token_row, scale_v, position_row,
                                                               type_row, j + W);
    const Reg v2 = embedding_vector<V, kHasPosition, kHasType>(token_row, scale_v, position_row,
                                                               type_row, j + 2 * W);
    const Reg v3 = embedding_vector<V, kHasPosition, kHasType>(token_row, scale_v, position_row,
                                                               type_row, j + 3 * W);
    store(out + j, v0);
    store(out + j + W, v1);
    store(out + j + 2 * W, v2);
    store(out + j + 3 * W, v3);
    if constexpr (kSum) {
      sum0 = V::add(sum0, v0);
      sum1 = V::add(sum1, v1);
      sum2 = V::add(sum2, v2);
      sum3 = V::add(sum3, v3);
    }
  }
  for (; j + W <= d_model; j += W) {
    const Reg v =
        embedding_vector<V, kHasPosition, kHasType>(token_row, scale_v, position_row, type_row, j);
    store(out + j, v);
    if constexpr (kSum) sum0 = V::add(sum0, v);
  }
  float sum = 0.0f;
  if constexpr (kSum) sum = V::reduce_add(V::add(V::add(sum0, sum1), V::add(sum2, sum3)));
  for (; j < d_model; ++j) {
    float value = token_row[j] * scale;
    if constexpr (kHasPosition) value += position_row[j];
    if constexpr (kHasType) value += type_row[j];
    out[j] = value;
    if constexpr (kSum) sum += value;
  }
  return sum;
}

// LayerNorm statistics of a row that is already in L1, given its sum. The variance is a second
// pass over the centred values (robust when |mean| >> stddev), again in four accumulators. The
// one-lane (scalar) build recomputes both statistics in double: a float running sum over 768+
// terms would make the specification less accurate than the SIMD paths' lane-parallel partial
// sums.
struct RowStatistics {
  float mean = 0.0f;
  float inv_std = 0.0f;
};

template <class V>
inline RowStatistics row_statistics(const float* row, float row_sum, int64_t d_model,
                                    float epsilon) {
  using Reg = typename V::Reg;
  constexpr int64_t W = V::kWidth;
  float mean = 0.0f;
  float variance = 0.0f;
  if constexpr (W == 1) {
    double sum = 0.0;
    for (int64_t j = 0; j < d_model; ++j) sum += row[j];
    const double mean_double = sum / static_cast<double>(d_model);
    double square_sum = 0.0;
    for (int64_t j = 0; j < d_model; ++j) {
      square_sum += (row[j] - mean_double) * (row[j] - mean_double);
    }
    mean = static_cast<float>(mean_double);
    variance = static_cast<float>(square_sum / static_cast<double>(d_model));
  } else {
    mean = row_sum / static_cast<float>(d_model);
    const Reg mean_v = V::set1(mean);
    Reg square0 = V::zero(), square1 = V::zero(), square2 = V::zero(), square3 = V::zero();
    int64_t j = 0;
    for (; j + 4 * W <= d_model; j += 4 * W) {
      const Reg c0 = V::sub(V::load(row + j), mean_v);
      const Reg c1 = V::sub(V::load(row + j + W), mean_v);
      const Reg c2 = V::sub(V::load(row + j + 2 * W), mean_v);
      const Reg c3 = V::sub(V::load(row + j + 3 * W), mean_v);
      square0 = V::fmadd(c0, c0, square0);
      square1 = V::fmadd(c1, c1, square1);
      square2 = V::fmadd(c2, c2, square2);
      square3 = V::fmadd(c3, c3, square3);
    }
    for (; j + W <= d_model; j += W) {
      const Reg c = V::sub(V::load(row + j), mean_v);
      square0 = V::fmadd(c, c, square0);
    }
    float square_sum = V::reduce_add(V::add(V::add(square0, square1), V::add(square2, square3)));
    for (; j < d_model; ++j) square_sum += (row[j] - mean) * (row[j] - mean);
    variance = square_sum / static_cast<float>(d_model);
  }
  return RowStatistics{mean, 1.0f / std::sqrt(variance + epsilon)};
}

// row = (row - mean) * inv_std * gamma + beta, in place.
template <class V>
inline void normalize_row(float* row, RowStatistics statistics, int64_t d_model, const float* gamma,
                          const float* beta) {
  using Reg = typename V::Reg;
  constexpr int64_t W = V::kWidth;
  const Reg mean_v = V::set1(statistics.mean);
  const Reg inv_std_v = V::set1(statistics.inv_std);
  int64_t j = 0;
#pragma GCC unroll 4
  for (; j + W <= d_model; j += W) {
    const Reg normalized = V::mul(V::sub(V::load(row + j), mean_v), inv_std_v);
    V::store(row + j, V::fmadd(normalized, V::load(gamma + j), V::load(beta + j)));
  }
  for (; j < d_model; ++j) {
    row[j] = (row[j] - statistics.mean) * statistics.inv_std * gamma[j] + beta[j];
  }
}

// With LayerNorm, each row is summed into its output row and normalised there one token later:
// a row's statistics end in a chain of dependent steps (horizontal sum, variance pass, horizontal
// sum, square root, divide), and normalising the previous row in the middle of it gives the core
// independent work to overlap with both waits.
template <class V, bool kHasPosition, bool kHasType, bool kLayerNorm, bool kStream = false>
void embed_range(const EmbeddingArgs& a, int64_t begin, int64_t end) {
  const int64_t d = a.d_model;
  RowStatistics previous;
  for (int64_t t = begin; t < end; ++t) {
    const float* token_row = a.token_table + static_cast<int64_t>(a.token_ids[t]) * d;
    const float* position_row = nullptr;
    if constexpr (kHasPosition) {
      const int64_t position = a.position_ids ? a.position_ids[t] : t;
      position_row = a.position_table + position * d;
    }
    const float* type_row = nullptr;
    if constexpr (kHasType) {
      const int64_t type = a.token_type_ids ? a.token_type_ids[t] : 0;
      type_row = a.token_type_table + type * d;
    }
    const float* next_token_row =
        t + 1 < end ? a.token_table + static_cast<int64_t>(a.token_ids[t + 1]) * d : nullptr;
    if constexpr (4 * V::kWidth < kFloatsPerCacheLine) {
      // Too narrow to spread one request per line over the vector loop (the scalar
      // specification): request the whole row up front.
      if (next_token_row != nullptr) prefetch_row(next_token_row, d);
      next_token_row = nullptr;
    }
    float* out = a.out + t * d;
    if constexpr (kLayerNorm) {
      const float sum = sum_embedding_row<V, kHasPosition, kHasType, true>(
          token_row, a.scale, position_row, type_row, d, out, next_token_row);
      if (t > begin) normalize_row<V>(out - d, previous, d, a.gamma, a.beta);
      previous = row_statistics<V>(out, sum, d, a.epsilon);
    } else {
      sum_embedding_row<V, kHasPosition, kHasType, false, kStream>(
          token_row, a.scale, position_row, type_row, d, out, next_token_row);
    }
  }
  if constexpr (kLayerNorm) {
    if (end > begin) normalize_row<V>(a.out + (end - 1) * d, previous, d, a.gamma, a.beta);
  }
}

// stream_output: the caller's output is too large to stay in cache (dispatch.cc). Without
// LayerNorm each output element is written once, so when the rows are aligned for it the pass
// writes them with non-temporal stores: no read for ownership of lines that are overwritten
// anyway. (LayerNorm writes a row twice, and its first write brings the line in.)
template <class V>
void embed(const EmbeddingArgs& a, int64_t begin, int64_t end, bool stream_output) {
  const bool position = a.position_table != nullptr;
  const bool type = a.token_type_table != nullptr;
  const bool norm = a.gamma != nullptr;
  const bool aligned = reinterpret_cast<uintptr_t>(a.out) % V::kStreamAlignment == 0 &&
                       (a.d_model * 4) % V::kStreamAlignment == 0;
  if (stream_output && !norm && aligned) {
    if (position && type) {
      embed_range<V, true, true, false, true>(a, begin, end);
    } else if (position) {
      embed_range<V, true, false, false, true>(a, begin, end);
    } else if (type) {
      embed_range<V, false, true, false, true>(a, begin, end);
    } else {
      embed_range<V, false, false, false, true>(a, begin, end);
    }
    V::stream_fence();
    return;
  }
  // One specialisation per combination keeps the inner loops free of branches.
  if (position && type && norm) return embed_range<V, true, true, true>(a, begin, end);
  if (position && type) return embed_range<V, true, true, false>(a, begin, end);
  if (position && norm) return embed_range<V, true, false, true>(a, begin, end);
  if (position) return embed_range<V, true, false, false>(a, begin, end);
  if (type && norm) return embed_range<V, false, true, true>(a, begin, end);
  if (type) return embed_range<V, false, true, false>(a, begin, end);
  if (norm) return embed_range<V, false, false, true>(a, begin, end);
  return embed_range<V, false, false, false>(a, begin, end);
}

// ---------------------------------------------------------------------------------------------
// RoPE (Su et al.): each pair (x_a, x_b) of a head rotates by the angle position * inv_freq[i]:
//   x_a' = x_a cos - x_b sin,   x_b' = x_b cos + x_a sin.

// Head h of q and head h of k share their angles: each rotation below does a head of q and (with
// kKeys) the same head of k, so cos and sin are loaded (and, interleaved, widened) once for both.

// Half pairing: a = i, b = i + rotary_dim / 2; both halves are contiguous vectors.
template <class V>
inline void rotate_half_vector(float* x, int64_t half, typename V::Reg c, typename V::Reg s) {
  const typename V::Reg a = V::load(x);
  const typename V::Reg b = V::load(x + half);
  V::store(x, V::fnmadd(b, s, V::mul(a, c)));
  V::store(x + half, V::fmadd(a, s, V::mul(b, c)));
}

inline void rotate_half_pair(float* x, int64_t half, float c, float s) {
  const float a = x[0];
  const float b = x[half];
  x[0] = a * c - b * s;
  x[half] = b * c + a * s;
}

template <class V, bool kKeys>
inline void rotate_half(float* q, float* k, const float* cos, const float* sin, int64_t half) {
  int64_t i = 0;
  for (; i + V::kWidth <= half; i += V::kWidth) {
    const typename V::Reg c = V::load(cos + i);
    const typename V::Reg s = V::load(sin + i);
    rotate_half_vector<V>(q + i, half, c, s);
    if constexpr (kKeys) rotate_half_vector<V>(k + i, half, c, s);
  }
  for (; i < half; ++i) {
    rotate_half_pair(q + i, half, cos[i], sin[i]);
    if constexpr (kKeys) rotate_half_pair(k + i, half, cos[i], sin[i]);
  }
}

// Interleaved pairing: a = 2i, b = 2i + 1. With c = [c0,c0,c1,c1,..], s likewise:
//   x' = x * c + swap_pairs(x) * [-s0, s0, -s1, s1, ..]
template <class V>
inline void rotate_interleaved_vector(float* x, typename V::Reg c, typename V::Reg signed_s) {
  const typename V::Reg value = V::load(x);
  V::store(x, V::fmadd(V::swap_pairs(value), signed_s, V::mul(value, c)));
}

inline void rotate_interleaved_pair(float* x, float c, float s) {
  const float a = x[0];
  const float b = x[1];
  x[0] = a * c - b * s;
  x[1] = b * c + a * s;
}

template <class V, bool kKeys>
inline void rotate_interleaved(float* q, float* k, const float* cos, const float* sin,
                               int64_t half) {
  const int64_t rotary_dim = 2 * half;
  int64_t j = 0;
  if constexpr (V::kWidth >= 2) {  // one lane holds no pair: the loop below does it all
    for (; j + V::kWidth <= rotary_dim; j += V::kWidth) {
      const typename V::Reg c = V::duplicate_pairs(cos + j / 2);
      const typename V::Reg s = V::negate_even(V::duplicate_pairs(sin + j / 2));
      rotate_interleaved_vector<V>(q + j, c, s);
      if constexpr (kKeys) rotate_interleaved_vector<V>(k + j, c, s);
    }
  }
  for (; j < rotary_dim; j += 2) {
    rotate_interleaved_pair(q + j, cos[j / 2], sin[j / 2]);
    if constexpr (kKeys) rotate_interleaved_pair(k + j, cos[j / 2], sin[j / 2]);
  }
}

template <class V, bool kKeys, RopePairing kPairing>
inline void rotate_heads(const RopeArgs& a, float* q, float* k, const float* cos,
                         const float* sin) {
  const int64_t half = a.rotary_dim / 2;
  for (int64_t h = 0; h < a.heads; ++h) {
    float* q_head = q + h * a.head_dim;
    float* k_head = kKeys ? k + h * a.head_dim : nullptr;
    if constexpr (kPairing == RopePairing::kHalf) {
      rotate_half<V, kKeys>(q_head, k_head, cos, sin, half);
    } else {
      rotate_interleaved<V, kKeys>(q_head, k_head, cos, sin, half);
    }
  }
}

template <class V, bool kKeys, RopePairing kPairing>
void rotate_range(const RopeArgs& a, int64_t begin, int64_t end) {
  const int64_t half = a.rotary_dim / 2;
  for (int64_t t = begin; t < end; ++t) {
    const int64_t position = a.position_ids ? a.position_ids[t] : t;
    const float* cos = a.cos + position * half;
    const float* sin = a.sin + position * half;
    float* q = a.q + t * a.q_stride;
    float* k = kKeys ? a.k + t * a.k_stride : nullptr;
    if constexpr (V::kWidth == 1) {
      // The specification rotates all of q, then all of k: GCC vectorises those elementwise
      // loops by itself, and a loop over both would stop it (it cannot rule out q and k
      // overlapping). Fusing them is a SIMD-path optimisation; the specification keeps its speed.
      rotate_heads<V, false, kPairing>(a, q, nullptr, cos, sin);
      if constexpr (kKeys) rotate_heads<V, false, kPairing>(a, k, nullptr, cos, sin);
    } else {
      rotate_heads<V, kKeys, kPairing>(a, q, k, cos, sin);
    }
  }
}

template <class V>
void rotate(const RopeArgs& a, int64_t begin, int64_t end) {
  const bool keys = a.k != nullptr;
  if (a.pairing == RopePairing::kHalf) {
    if (keys) return rotate_range<V, true, RopePairing::kHalf>(a, begin, end);
    return rotate_range<V, false, RopePairing::kHalf>(a, begin, end);
  }
  if (keys) return rotate_range<V, true, RopePairing::kInterleaved>(a, begin, end);
  return rotate_range<V, false, RopePairing::kInterleaved>(a, begin, end);
}

// ---------------------------------------------------------------------------------------------
// Distance bias: score row (b, h, i) gets distance_bias[h, (queries - 1 - i) + j] for all j.

template <class V>
void add_distance_bias(const DistanceBiasArgs& a, int64_t begin, int64_t end) {
  const int64_t table_queries = a.table_queries > 0 ? a.table_queries : a.queries;
  const int64_t table_keys = a.table_keys > 0 ? a.table_keys : a.keys;
  const int64_t span = table_queries + table_keys - 1;
  for (int64_t row = begin; row < end; ++row) {
    const int64_t i = row % a.queries;
    const int64_t h = (row / a.queries) % a.heads;
    const float* bias = a.distance_bias + h * span + (table_queries - 1 - i);
    float* scores = a.scores + row * a.keys;
    int64_t j = 0;
    for (; j + V::kWidth <= a.keys; j += V::kWidth) {
      V::store(scores + j, V::add(V::load(scores + j), V::load(bias + j)));
    }
    for (; j < a.keys; ++j) scores[j] += bias[j];
  }
}

template <class V>
constexpr PeKernelTable make_kernel_table() {
  return PeKernelTable{&embed<V>, &rotate<V>, &add_distance_bias<V>};
}

}  // namespace tinyenc::detail::TINYENC_PE_ISA_NAMESPACE
