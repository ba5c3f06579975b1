// Benchmark-only kernels, written once over a vector traits type V (engine/pe/vec_<isa>.h) in the
// style of engine/pe/kernel_impl.h. pe_bench.cc includes this file once per ISA, each time inside
// a `#pragma GCC target` region, so every copy is compiled for its ISA only:
//
//   - the unfused baseline: in-place passes "add a table row" and "LayerNorm" over the output,
//     using the same loops and the same two-pass LayerNorm as the fused kernel, so that the only
//     difference from embed_tokens is the number of trips through memory;
//   - the angle-addition recurrence candidate for sinusoidal rows: a fused gather + PE (+ LN)
//     pass that generates each position's row from the previous one instead of reading a table;
//   - a candidate fused embedding + LayerNorm with independent accumulators (embed_layer_norm).
//
// Define PE_BENCH_NAMESPACE and PE_BENCH_VEC before each inclusion. There is deliberately no
// include guard, and this file includes nothing: pe_bench.cc includes every header it needs first,
// outside the target regions, so no standard-library code is compiled with wider ISA flags.

#if !defined(PE_BENCH_NAMESPACE) || !defined(PE_BENCH_VEC)
#error "define PE_BENCH_NAMESPACE and PE_BENCH_VEC before including pe_bench_passes.h"
#endif

namespace tinyenc_bench::PE_BENCH_NAMESPACE {

using V = PE_BENCH_VEC;

// out[t] += table[ids ? ids[t] : 0] for rows [begin, end) of the [tokens, d_model] output.
inline void add_rows(float* out, int64_t d_model, const float* table, const int32_t* ids,
                     int64_t begin, int64_t end) {
  for (int64_t t = begin; t < end; ++t) {
    const float* row = table + static_cast<int64_t>(ids ? ids[t] : 0) * d_model;
    float* values = out + t * d_model;
    int64_t j = 0;
    for (; j + V::kWidth <= d_model; j += V::kWidth) {
      V::store(values + j, V::add(V::load(values + j), V::load(row + j)));
    }
    for (; j < d_model; ++j) values[j] += row[j];
  }
}

// The fused kernel's LayerNorm of one row (engine/pe/kernel_impl.h: row_statistics, then
// normalize_row), copied because kernel_impl.h can be included once per translation unit only;
// keep the two in step. The sum, which the fused kernel takes while it writes the row, is a pass
// of its own here; every reduction uses four independent accumulators, as in the kernel. The
// one-lane build accumulates in double, as the engine's scalar specification does. out may equal
// row. A template so that only the branch for V is compiled.
template <class Vec>
inline void layer_norm_row_impl(const float* row, int64_t d_model, const float* gamma,
                                const float* beta, float epsilon, float* out) {
  using Reg = typename Vec::Reg;
  constexpr int64_t W = Vec::kWidth;
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
    Reg sum0 = Vec::zero(), sum1 = Vec::zero(), sum2 = Vec::zero(), sum3 = Vec::zero();
    int64_t j = 0;
    for (; j + 4 * W <= d_model; j += 4 * W) {
      sum0 = Vec::add(sum0, Vec::load(row + j));
      sum1 = Vec::add(sum1, Vec::load(row + j + W));
      sum2 = Vec::add(sum2, Vec::load(row + j + 2 * W));
      sum3 = Vec::add(sum3, Vec::load(row + j + 3 * W));
    }
    for (; j + W <= d_model; j += W) sum0 = Vec::add(sum0, Vec::load(row + j));
    float sum = Vec::reduce_add(Vec::add(Vec::add(sum0, sum1), Vec::add(sum2, sum3)));
    for (; j < d_model; ++j) sum += row[j];
    mean = sum / static_cast<float>(d_model);

    const Reg mean_v = Vec::set1(mean);
    Reg square0 = Vec::zero(), square1 = Vec::zero(), square2 = Vec::zero(), square3 = Vec::zero();
    j = 0;
    for (; j + 4 * W <= d_model; j += 4 * W) {
      const Reg c0 = Vec::sub(Vec::load(row + j), mean_v);
      const Reg c1 = Vec::sub(Vec::load(row + j + W), mean_v);
      const Reg c2 = Vec::sub(Vec::load(row + j + 2 * W), mean_v);
      const Reg c3 = Vec::sub(Vec::load(row + j + 3 * W), mean_v);
      square0 = Vec::fmadd(c0, c0, square0);
      square1 = Vec::fmadd(c1, c1, square1);
      square2 = Vec::fmadd(c2, c2, square2);
      square3 = Vec::fmadd(c3, c3, square3);
    }
    for (; j + W <= d_model; j += W) {
      const Reg c = Vec::sub(Vec::load(row + j), mean_v);
      square0 = Vec::fmadd(c, c, square0);
    }
    float square_sum =
        Vec::reduce_add(Vec::add(Vec::add(square0, square1), Vec::add(square2, square3)));
    for (; j < d_model; ++j) square_sum += (row[j] - mean) * (row[j] - mean);
    variance = square_sum / static_cast<float>(d_model);
  }
  const float inv_std = 1.0f / std::sqrt(variance + epsilon);

  const Reg mean_v = Vec::set1(mean);
  const Reg inv_std_v = Vec::set1(inv_std);
  int64_t j = 0;
#pragma GCC unroll 4
  for (; j + W <= d_model; j += W) {
    const Reg normalized = Vec::mul(Vec::sub(Vec::load(row + j), mean_v), inv_std_v);
    Vec::store(out + j, Vec::fmadd(normalized, Vec::load(gamma + j), Vec::load(beta + j)));
  }
  for (; j < d_model; ++j) out[j] = (row[j] - mean) * inv_std * gamma[j] + beta[j];
}

inline void layer_norm_row(const float* row, int64_t d_model, const float* gamma, const float* beta,
                           float epsilon, float* out) {
  layer_norm_row_impl<V>(row, d_model, gamma, beta, epsilon, out);
}

// In-place LayerNorm of rows [begin, end).
inline void layer_norm_rows(float* out, int64_t d_model, const float* gamma, const float* beta,
                            float epsilon, int64_t begin, int64_t end) {
  for (int64_t t = begin; t < end; ++t) {
    float* row = out + t * d_model;
    layer_norm_row(row, d_model, gamma, beta, epsilon, row);
  }
}

// out[t] = (LN)(scale * token_table[token_ids[t]] + PE(position_ids[t])) with the interleaved
// sinusoidal row generated by the angle-addition recurrence
//   sin(a + w) = sin a cos w + cos a sin w,   cos(a + w) = cos a cos w - sin a sin w,
// stepping one position per token (RecurrenceArgs in pe_bench.cc). `state` holds the row of the
// next expected position, [s0, c0, s1, c1, ..]; with step_cos = [cos w0, cos w0, cos w1, ..] and
// step_sin = [sin w0, -sin w0, sin w1, ..] one step is
//   state' = state * step_cos + swap_pairs(state) * step_sin.
// A position that does not follow the previous one restarts the recurrence: position 0 is
// (0, 1) exactly; any other start is computed with sinf/cosf (sinusoidal_rows).
// A template so that the one-lane build never sees the pair operations it lacks.
template <class Vec>
void embed_recurrence_impl(const RecurrenceArgs& r, int64_t begin, int64_t end, float* state,
                           float* scratch) {
  const tinyenc::EmbeddingArgs& a = *r.embedding;
  const int64_t d = a.d_model;
  const typename Vec::Reg scale_v = Vec::set1(a.scale);
  int64_t expected = -1;
  for (int64_t t = begin; t < end; ++t) {
    const int64_t position = a.position_ids ? a.position_ids[t] : t;
    if (position != expected) {
      if (position == 0) {
        for (int64_t j = 0; j < d; j += 2) {
          state[j] = 0.0f;
          state[j + 1] = 1.0f;
        }
      } else {
        tinyenc::sinusoidal_rows(r.params, d, position, 1, state);
      }
    }
    expected = position + 1;

    const float* token_row = a.token_table + static_cast<int64_t>(a.token_ids[t]) * d;
    float* sum = a.gamma ? scratch : a.out + t * d;
    int64_t j = 0;
    if constexpr (Vec::kWidth > 1) {
      for (; j + Vec::kWidth <= d; j += Vec::kWidth) {
        const typename Vec::Reg row = Vec::load(state + j);
        Vec::store(sum + j, Vec::add(Vec::mul(Vec::load(token_row + j), scale_v), row));
        Vec::store(state + j, Vec::fmadd(Vec::swap_pairs(row), Vec::load(r.step_sin + j),
                                         Vec::mul(row, Vec::load(r.step_cos + j))));
      }
    }
    for (; j < d; j += 2) {
      const float sine = state[j];
      const float cosine = state[j + 1];
      sum[j] = token_row[j] * a.scale + sine;
      sum[j + 1] = token_row[j + 1] * a.scale + cosine;
      state[j] = sine * r.step_cos[j] + cosine * r.step_sin[j];
      state[j + 1] = cosine * r.step_cos[j + 1] + sine * r.step_sin[j + 1];
    }
    if (a.gamma) layer_norm_row(scratch, d, a.gamma, a.beta, a.epsilon, a.out + t * d);
  }
}

inline void embed_recurrence(const RecurrenceArgs& r, int64_t begin, int64_t end, float* state,
                             float* scratch) {
  embed_recurrence_impl<V>(r, begin, end, state, scratch);
}

// A variant of the engine's fused embedding + LayerNorm (not the engine's code), kept for
// comparison: the same reductions (sum taken while the row is written, four independent
// accumulators each), but the row goes through an L1 scratch buffer and is normalised into the
// output at once. The engine writes the row into the output and normalises it there one token
// later, so that the statistics' dependency chain overlaps the previous row's normalisation.
template <bool kHasPosition, bool kHasType>
inline typename V::Reg embedding_value(const float* token_row, typename V::Reg scale,
                                       const float* position_row, const float* type_row,
                                       int64_t j) {
  typename V::Reg value = V::mul(V::load(token_row + j), scale);
  if constexpr (kHasPosition) value = V::add(value, V::load(position_row + j));
  if constexpr (kHasType) value = V::add(value, V::load(type_row + j));
  return value;
}

template <bool kHasPosition, bool kHasType>
void embed_layer_norm_rows(const tinyenc::EmbeddingArgs& a, int64_t begin, int64_t end,
                           float* scratch) {
  constexpr int64_t kUnroll = 4;
  constexpr int64_t kStep = kUnroll * V::kWidth;
  const int64_t d = a.d_model;
  const typename V::Reg scale = V::set1(a.scale);
  for (int64_t t = begin; t < end; ++t) {
    const float* token_row = a.token_table + static_cast<int64_t>(a.token_ids[t]) * d;
    const float* position_row = nullptr;
    if constexpr (kHasPosition) {
      position_row = a.position_table + (a.position_ids ? a.position_ids[t] : t) * d;
    }
    const float* type_row = nullptr;
    if constexpr (kHasType) {
      type_row = a.token_type_table + (a.token_type_ids ? a.token_type_ids[t] : 0) * d;
    }

    typename V::Reg sum[kUnroll] = {V::zero(), V::zero(), V::zero(), V::zero()};
    int64_t j = 0;
    for (; j + kStep <= d; j += kStep) {
      for (int64_t u = 0; u < kUnroll; ++u) {
        const typename V::Reg value = embedding_value<kHasPosition, kHasType>(
            token_row, scale, position_row, type_row, j + u * V::kWidth);
        V::store(scratch + j + u * V::kWidth, value);
        sum[u] = V::add(sum[u], value);
      }
    }
    for (; j + V::kWidth <= d; j += V::kWidth) {
      const typename V::Reg value =
          embedding_value<kHasPosition, kHasType>(token_row, scale, position_row, type_row, j);
      V::store(scratch + j, value);
      sum[0] = V::add(sum[0], value);
    }
    float total = V::reduce_add(V::add(V::add(sum[0], sum[1]), V::add(sum[2], sum[3])));
    for (; j < d; ++j) {
      float value = token_row[j] * a.scale;
      if constexpr (kHasPosition) value += position_row[j];
      if constexpr (kHasType) value += type_row[j];
      scratch[j] = value;
      total += value;
    }
    const float mean = total / static_cast<float>(d);

    const typename V::Reg mean_v = V::set1(mean);
    typename V::Reg square[kUnroll] = {V::zero(), V::zero(), V::zero(), V::zero()};
    j = 0;
    for (; j + kStep <= d; j += kStep) {
      for (int64_t u = 0; u < kUnroll; ++u) {
        const typename V::Reg centered = V::sub(V::load(scratch + j + u * V::kWidth), mean_v);
        square[u] = V::fmadd(centered, centered, square[u]);
      }
    }
    for (; j + V::kWidth <= d; j += V::kWidth) {
      const typename V::Reg centered = V::sub(V::load(scratch + j), mean_v);
      square[0] = V::fmadd(centered, centered, square[0]);
    }
    float square_sum =
        V::reduce_add(V::add(V::add(square[0], square[1]), V::add(square[2], square[3])));
    for (; j < d; ++j) square_sum += (scratch[j] - mean) * (scratch[j] - mean);
    const float inv_std = 1.0f / std::sqrt(square_sum / static_cast<float>(d) + a.epsilon);

    const typename V::Reg inv_std_v = V::set1(inv_std);
    float* out = a.out + t * d;
    j = 0;
    for (; j + V::kWidth <= d; j += V::kWidth) {
      const typename V::Reg normalized = V::mul(V::sub(V::load(scratch + j), mean_v), inv_std_v);
      V::store(out + j, V::fmadd(normalized, V::load(a.gamma + j), V::load(a.beta + j)));
    }
    for (; j < d; ++j) out[j] = (scratch[j] - mean) * inv_std * a.gamma[j] + a.beta[j];
  }
}

// Rows [begin, end) of an EmbeddingArgs with gamma/beta set; scratch holds d_model floats.
inline void embed_layer_norm(const tinyenc::EmbeddingArgs& a, int64_t begin, int64_t end,
                             float* scratch) {
  const bool position = a.position_table != nullptr;
  const bool type = a.token_type_table != nullptr;
  if (position && type) return embed_layer_norm_rows<true, true>(a, begin, end, scratch);
  if (position) return embed_layer_norm_rows<true, false>(a, begin, end, scratch);
  if (type) return embed_layer_norm_rows<false, true>(a, begin, end, scratch);
  return embed_layer_norm_rows<false, false>(a, begin, end, scratch);
}

}  // namespace tinyenc_bench::PE_BENCH_NAMESPACE
