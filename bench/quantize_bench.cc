// The int8 Linear's own passes around oneDNN's s32 matmul, one thread, on the presets' shapes:
//
//   BM_QuantizeRows/<rows>/<in>    each row's range, its sum of squares (the outlying-row test)
//                                  and its u8 levels: what rowwise_int8 does before the matmul.
//   BM_DequantizeRows/<rows>/<out>/<in_place>
//                                  s32 sums to f32 outputs with bias, row by row: what it does
//                                  after, from a separate buffer or in place (the sums in the
//                                  output's storage). 128 x 3072 sums (1.5 MB) are larger than a
//                                  core's L2, as after a real FFN-up matmul; 8 x 3072 stay in it.
//   BM_GeluErf/<onednn>/<count>    the erf-GELU of an FFN's hidden rows (128 x 3072 at base's
//                                  long input), tinyenc's own pass (gelu.h, applied to each row
//                                  as it is dequantized) or oneDNN's eltwise primitive, in place,
//                                  on a fresh copy of the values each time (the copy is timed).
//
// Counters: values per second (items_per_second) and bytes read + written per second.
//
//   build/bench/quantize_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <oneapi/dnnl/dnnl.hpp>
#include <random>
#include <vector>

#include "engine/ops/gelu.h"
#include "engine/ops/quantize.h"

namespace {

std::vector<float> normal_values(int64_t count, uint32_t seed) {
  std::mt19937 generator(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> values(static_cast<size_t>(count));
  for (float& v : values) v = normal(generator);
  return values;
}

void BM_QuantizeRows(benchmark::State& state) {
  const int64_t rows = state.range(0), in = state.range(1);
  const std::vector<float> x = normal_values(rows * in, 1);
  std::vector<uint8_t> levels(static_cast<size_t>(rows * in));
  const int32_t top = tinyenc::activation_levels();
  for (auto _ : state) {
    for (int64_t r = 0; r < rows; ++r) {
      const float* row = x.data() + r * in;
      const tinyenc::RowStatistics statistics = tinyenc::row_statistics(row, in);
      benchmark::DoNotOptimize(statistics.squares);
      const tinyenc::ActivationQuantization q =
          tinyenc::choose_activation_quantization(statistics.range, top);
      tinyenc::quantize_activations(row, in, q, top, levels.data() + r * in);
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * rows * in);
  state.SetBytesProcessed(state.iterations() * rows * in * 5);
}

void BM_DequantizeRows(benchmark::State& state) {
  const int64_t rows = state.range(0), out = state.range(1);
  const bool in_place = state.range(2) != 0;
  std::vector<int32_t> sums(static_cast<size_t>(rows * out)), row_sums(static_cast<size_t>(out));
  std::mt19937 generator(2);
  std::uniform_int_distribution<int32_t> sum(-1 << 20, 1 << 20), row_sum(-20000, 20000);
  for (int32_t& s : sums) s = sum(generator);
  for (int32_t& s : row_sums) s = row_sum(generator);
  const std::vector<float> weight_scales = normal_values(out, 3), bias = normal_values(out, 4);
  std::vector<float> y(static_cast<size_t>(rows * out));
  const tinyenc::ActivationQuantization q{0.02f, 117};
  const int32_t* source = in_place ? reinterpret_cast<const int32_t*>(y.data()) : sums.data();
  if (in_place) std::memcpy(y.data(), sums.data(), sums.size() * sizeof(int32_t));
  for (auto _ : state) {
    for (int64_t r = 0; r < rows; ++r) {
      tinyenc::dequantize_row(source + r * out, q, weight_scales.data(), row_sums.data(),
                              bias.data(), false, nullptr, out, y.data() + r * out);
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * rows * out);
  state.SetBytesProcessed(state.iterations() * rows * out * (in_place ? 4 : 8));
}

void BM_GeluErf(benchmark::State& state) {
  const bool onednn = state.range(0) != 0;
  const int64_t count = state.range(1);
  const std::vector<float> x = normal_values(count, 5);
  std::vector<float> y = x;
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  const dnnl::memory::desc desc({count}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::a);
  const dnnl::eltwise_forward::primitive_desc pd(
      dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference,
                                  dnnl::algorithm::eltwise_gelu_erf, desc, 0.0f, 0.0f),
      engine);
  const dnnl::eltwise_forward eltwise(pd);
  const dnnl::memory data(desc, engine, y.data());
  if (onednn) state.SetLabel(pd.impl_info_str());
  for (auto _ : state) {
    // Fresh values each time: GELU applied again and again in place takes every value towards 0,
    // into the subnormals that cost Intel CPUs a microcode assist per value.
    std::memcpy(y.data(), x.data(), x.size() * sizeof(float));
    if (onednn) {
      eltwise.execute(stream, {{DNNL_ARG_SRC, data}, {DNNL_ARG_DST, data}});
    } else {
      tinyenc::gelu_erf(y.data(), count);
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * count);
}

}  // namespace

BENCHMARK(BM_GeluErf)->ArgNames({"onednn", "count"})->ArgsProduct({{0, 1}, {3072, 393216}});
BENCHMARK(BM_QuantizeRows)->ArgNames({"rows", "in"})->Args({128, 768})->Args({128, 3072});
BENCHMARK(BM_DequantizeRows)
    ->ArgNames({"rows", "out", "in_place"})
    ->ArgsProduct({{8}, {3072}, {0, 1}})
    ->ArgsProduct({{128}, {768, 2304, 3072}, {0, 1}});

BENCHMARK_MAIN();
