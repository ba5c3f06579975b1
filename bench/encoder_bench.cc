// Whole-encoder latency on random weights: BM_Encoder/<config>/<batch>/<seq>/<threads>, plus
// BM_Matmul/1024/<threads>, a plain oneDNN fp32 matmul (1024 x 1024 x 1024) as the hardware
// reference in the same run. Counters: GFLOP/s (matmul FLOPs of the forward pass).
//
//   build/bench/encoder_bench --benchmark_filter='BM_Encoder/tiny/.*'
#include <benchmark/benchmark.h>
#include <omp.h>

#include <memory>
#include <numeric>
#include <oneapi/dnnl/dnnl.hpp>
#include <random>
#include <string>
#include <vector>

#include "engine/encoder.h"
#include "engine/random_encoder.h"

namespace {

using tinyenc::Encoder;
using tinyenc::EncoderConfig;

// Multiply-adds x 2 of one forward pass: projections, FFN and the two attention matmuls.
double forward_flops(const EncoderConfig& c, int64_t batch, int64_t seq) {
  const double tokens = static_cast<double>(batch * seq);
  const double d = static_cast<double>(c.d_model), f = static_cast<double>(c.ffn_dim);
  const double per_layer = 2.0 * tokens * (4.0 * d * d + 2.0 * d * f) +
                           2.0 * 2.0 * static_cast<double>(batch) * seq * seq * d;
  return per_layer * static_cast<double>(c.layers);
}

void BM_Encoder(benchmark::State& state, std::string preset, int64_t batch, int64_t seq,
                int threads) {
  omp_set_num_threads(threads);
  const EncoderConfig config = *tinyenc::preset_config(preset);
  Encoder encoder(config, tinyenc::random_encoder_weights(config, 42));
  std::mt19937 random(7);
  std::uniform_int_distribution<int32_t> token(1000, 29000);
  std::vector<int32_t> ids(static_cast<size_t>(batch * seq));
  for (int32_t& id : ids) id = token(random);
  tinyenc::EncoderInput input;
  input.batch = batch;
  input.seq = seq;
  input.ids = ids.data();
  encoder.forward(input);  // primitives and packed weights are created on the first call
  for (auto _ : state) {
    tinyenc::EncoderOutput output = encoder.forward(input);
    benchmark::DoNotOptimize(output.last_hidden.data());
  }
  state.counters["GFLOP/s"] = benchmark::Counter(forward_flops(config, batch, seq) * 1e-9,
                                                 benchmark::Counter::kIsIterationInvariantRate);
  state.counters["tokens/s"] = benchmark::Counter(static_cast<double>(batch * seq),
                                                  benchmark::Counter::kIsIterationInvariantRate);
}

void BM_Matmul(benchmark::State& state, int64_t n, int threads) {
  omp_set_num_threads(threads);
  using dnnl::memory;
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  const memory::desc a({n, n}, memory::data_type::f32, memory::format_tag::ab);
  const memory::desc b_any({n, n}, memory::data_type::f32, memory::format_tag::any);
  const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, b_any, a), engine);
  memory src(a, engine), dst(a, engine), weights(pd.weights_desc(), engine);
  std::vector<float> values(static_cast<size_t>(n * n), 0.5f);
  std::copy(values.begin(), values.end(), static_cast<float*>(src.get_data_handle()));
  memory plain(a, engine);
  std::copy(values.begin(), values.end(), static_cast<float*>(plain.get_data_handle()));
  dnnl::reorder(plain, weights).execute(stream, plain, weights);
  const dnnl::matmul matmul(pd);
  for (auto _ : state) {
    matmul.execute(stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}});
    stream.wait();
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(2.0 * n * n * n * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

int main(int argc, char** argv) {
  for (int threads : {1, 2}) {
    benchmark::RegisterBenchmark(("BM_Matmul/1024/" + std::to_string(threads)).c_str(), BM_Matmul,
                                 1024, threads)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  for (const char* preset : {"tiny", "mini", "small", "base"}) {
    for (int64_t batch : {1, 8}) {
      for (int64_t seq : {8, 32, 128, 512}) {
        for (int threads : {1, 2}) {
          const std::string name = std::string("BM_Encoder/") + preset + "/" +
                                   std::to_string(batch) + "/" + std::to_string(seq) + "/" +
                                   std::to_string(threads);
          benchmark::RegisterBenchmark(name.c_str(), BM_Encoder, preset, batch, seq, threads)
              ->Unit(benchmark::kMillisecond)
              ->UseRealTime();
        }
      }
    }
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
