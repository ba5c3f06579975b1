// Scaled dot-product attention's steps on their own, one thread, at base's shape (12 heads of
// 64, B = 1) from a short input to a long one:
//
//   BM_Scores/<impl>/<seq>      scale * q k^T over heads read in place from a fused QKV buffer:
//                               impl 0 oneDNN in f32, 1 oneDNN from dense bf16 planes of q, k
//                               and v (made once, outside the timing), 2 tinyenc's f32 kernel
//                               (short_attention.h), 3 tinyenc's bf16 kernel
//                               (bf16_attention.h: its rounding of q, k, v timed with it)
//   BM_Softmax/<onednn>/<seq>   the softmax over the 12 x seq rows of seq scores, in place:
//                               tinyenc's (softmax_rows.h) or oneDNN's primitive
//   BM_ToBf16/<seq>             the probabilities rounded to bf16 for a bf16 context product
//   BM_Context/<impl>/<seq>     probabilities x v, written in place into [T, H, Dh] (impl as
//                               for BM_Scores)
//
// Counters: GFLOP/s for the products, values per second (items_per_second) for the others.
//
//   build/bench/attention_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstdint>
#include <oneapi/dnnl/dnnl.hpp>
#include <random>
#include <vector>

#include "engine/dtype.h"
#include "engine/ops/attention.h"
#include "engine/ops/bf16_attention.h"
#include "engine/ops/short_attention.h"
#include "engine/ops/softmax_rows.h"
#include "engine/ops/to_bf16.h"

namespace {

using tinyenc::View4;
using tinyenc::View4Bf16;
constexpr int64_t kHeads = 12, kHeadDim = 64, kModel = kHeads * kHeadDim;

std::vector<float> normal_values(int64_t count, uint32_t seed) {
  std::mt19937 generator(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> values(static_cast<size_t>(count));
  for (float& v : values) v = normal(generator);
  return values;
}

// The heads of q, k or v at `offset` in a [T, 3 * D] QKV buffer.
View4 heads_of(const float* qkv, int64_t seq, int64_t offset) {
  return View4{
      qkv + offset, {1, kHeads, seq, kHeadDim}, {seq * 3 * kModel, kHeadDim, 3 * kModel, 1}};
}

// The heads of plane p (q, k or v) of a bf16 copy [3, T, D], as the attention layer makes it.
View4Bf16 plane_heads(const uint16_t* planes, int64_t seq, int64_t p) {
  return View4Bf16{planes + p * seq * kModel, {seq * kModel, kHeadDim, kModel, 1}};
}

enum Impl { kOnednnF32, kOnednnBf16, kShort, kOwnBf16 };

bool skip_impl(benchmark::State& state) {
  if (state.range(0) == kOnednnBf16 && !tinyenc::cpu_features().avx512_bf16 &&
      !tinyenc::cpu_features().amx_bf16) {
    state.SkipWithError("no bf16 matmul on this CPU");
    return true;
  }
  if (state.range(0) == kShort && !tinyenc::short_attention_available()) {
    state.SkipWithError("no short-attention kernel for this ISA");
    return true;
  }
  if (state.range(0) == kOwnBf16 && !tinyenc::bf16_attention_available()) {
    state.SkipWithError("no bf16 attention kernel for this CPU and ISA");
    return true;
  }
  return false;
}

void BM_Scores(benchmark::State& state) {
  if (skip_impl(state)) return;
  const bool bf16 = state.range(0) == kOnednnBf16;
  const int64_t seq = state.range(1);
  tinyenc::Runtime runtime;
  tinyenc::ops::AttentionCore core(runtime);
  tinyenc::ops::ToBf16 to_bf16(runtime);
  const std::vector<float> qkv = normal_values(seq * 3 * kModel, 1);
  std::vector<uint16_t> qkv16(qkv.size());
  to_bf16.planes(qkv.data(), seq, 3, kModel, qkv16.data());
  std::vector<float> scores(static_cast<size_t>(kHeads * seq * seq));
  // tinyenc's own kernels, or null for oneDNN's.
  const auto own = state.range(0) == kOwnBf16 ? tinyenc::bf16_attention_scores
                   : state.range(0) == kShort ? tinyenc::short_attention_scores
                                              : nullptr;
  for (auto _ : state) {
    if (own) {
      own(heads_of(qkv.data(), seq, 0), heads_of(qkv.data(), seq, kModel), 0.125f, nullptr,
          scores.data());
      benchmark::ClobberMemory();
      continue;
    }
    core.scores(heads_of(qkv.data(), seq, 0), heads_of(qkv.data(), seq, kModel), 0.125f, nullptr,
                {}, scores.data(), bf16 ? plane_heads(qkv16.data(), seq, 0) : View4Bf16{},
                bf16 ? plane_heads(qkv16.data(), seq, 1) : View4Bf16{});
    benchmark::ClobberMemory();
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * 2.0 * kHeads * seq * seq * kHeadDim,
      benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
}

void BM_Softmax(benchmark::State& state) {
  const bool onednn = state.range(0) != 0;
  const int64_t seq = state.range(1), rows = kHeads * seq;
  const std::vector<float> scores = normal_values(rows * seq, 2);
  std::vector<float> data = scores;
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  const dnnl::memory::desc desc({rows, seq}, dnnl::memory::data_type::f32,
                                dnnl::memory::format_tag::ab);
  const dnnl::softmax_v2_forward::primitive_desc pd(
      dnnl::softmax_v2_forward::desc(dnnl::prop_kind::forward_inference,
                                     dnnl::algorithm::softmax_accurate, desc, desc, 1),
      engine);
  const dnnl::softmax_v2_forward primitive(pd);
  const dnnl::memory memory(desc, engine, data.data());
  if (onednn) state.SetLabel(pd.impl_info_str());
  for (auto _ : state) {
    if (onednn) {
      primitive.execute(stream, {{DNNL_ARG_SRC, memory}, {DNNL_ARG_DST, memory}});
    } else {
      tinyenc::softmax_rows(data.data(), rows, seq, data.data());
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * rows * seq);
}

void BM_ToBf16(benchmark::State& state) {
  const int64_t count = kHeads * state.range(0) * state.range(0);
  tinyenc::Runtime runtime;
  tinyenc::ops::ToBf16 to_bf16(runtime);
  const std::vector<float> values = normal_values(count, 3);
  std::vector<uint16_t> bits(static_cast<size_t>(count));
  for (auto _ : state) {
    to_bf16(values.data(), count, bits.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * count);
}

void BM_Context(benchmark::State& state) {
  if (skip_impl(state)) return;
  const bool bf16 = state.range(0) == kOnednnBf16;
  const int64_t seq = state.range(1);
  tinyenc::Runtime runtime;
  tinyenc::ops::AttentionCore core(runtime);
  tinyenc::ops::ToBf16 to_bf16(runtime);
  const std::vector<float> qkv = normal_values(seq * 3 * kModel, 4);
  std::vector<uint16_t> qkv16(qkv.size());
  to_bf16.planes(qkv.data(), seq, 3, kModel, qkv16.data());
  std::vector<float> probabilities = normal_values(kHeads * seq * seq, 5);
  std::vector<float> context(static_cast<size_t>(seq * kModel));
  const View4 out{context.data(), {1, kHeads, seq, kHeadDim}, {seq * kModel, kHeadDim, kModel, 1}};
  for (auto _ : state) {
    if (state.range(0) == kOwnBf16) {
      tinyenc::bf16_attention_context(probabilities.data(), heads_of(qkv.data(), seq, 2 * kModel),
                                      out);
    } else if (state.range(0) == kShort) {
      tinyenc::short_attention_context(probabilities.data(), heads_of(qkv.data(), seq, 2 * kModel),
                                       out);
    } else {
      core.context(probabilities.data(), heads_of(qkv.data(), seq, 2 * kModel), out,
                   bf16 ? plane_heads(qkv16.data(), seq, 2) : View4Bf16{});
    }
    benchmark::ClobberMemory();
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * 2.0 * kHeads * seq * seq * kHeadDim,
      benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
}

}  // namespace

BENCHMARK(BM_Scores)
    ->ArgNames({"impl", "seq"})
    ->ArgsProduct({{0, 1, 2, 3}, {8, 19, 32, 48, 64, 128, 512}});
BENCHMARK(BM_Softmax)
    ->ArgNames({"onednn", "seq"})
    ->ArgsProduct({{0, 1}, {16, 19, 27, 32, 128, 512}});
BENCHMARK(BM_ToBf16)->ArgName("seq")->Arg(32)->Arg(128)->Arg(512);
BENCHMARK(BM_Context)
    ->ArgNames({"impl", "seq"})
    ->ArgsProduct({{0, 1, 2, 3}, {8, 19, 32, 48, 64, 128, 512}});

BENCHMARK_MAIN();
