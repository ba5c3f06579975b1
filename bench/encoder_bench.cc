// Whole-encoder latency on random weights: BM_Encoder/<config>/<batch>/<seq>/<threads> in f32,
// BM_Encoder_int8/... and BM_Encoder_bf16/... (same suffixes) in those compute dtypes, plus the
// hardware references of the same run: BM_Matmul/1024/<threads>, a plain oneDNN fp32 matmul
// (1024 x 1024 x 1024), BM_Matmul_int8/1024/<threads>, tinyenc's int8 Linear at that size
// (activation quantization included), and BM_Memcpy/<bytes>, the memory bandwidth weights can
// stream at. Counters: GFLOP/s (matmul FLOPs of the forward pass), weight_GB/s (the Linear
// weights' bytes, scales included, each read once per forward: compare with BM_Memcpy's
// bytes_per_second at short sequences, where a forward pass is a stream over its weights).
// Label: oneDNN's implementation of the FFN-in matmul. BM_Encoder_mixed/<config>/<layout>/<threads>
// runs 32 texts of mixed lengths padded or packed (tokens/s of real tokens).
//
//   build/bench/encoder_bench --benchmark_filter='BM_Encoder(_int8)?/base/1/(8|128)/1$'
//     --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true
//     --benchmark_report_aggregates_only=true   (one command line)
#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <numeric>
#include <oneapi/dnnl/dnnl.hpp>
#include <random>
#include <string>
#include <vector>

#include "engine/dtype.h"
#include "engine/encoder.h"
#include "engine/layers/linear.h"
#include "engine/random_encoder.h"

namespace {

using tinyenc::ComputeDtype;
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

// Bytes of the Linear weights one forward pass reads: every matrix once, in its dtype's storage
// (int8 adds a float scale per output channel; biases are f32 in every dtype).
double weight_bytes(const EncoderConfig& c, ComputeDtype dtype) {
  const double d = static_cast<double>(c.d_model), f = static_cast<double>(c.ffn_dim);
  const double elements = 4.0 * d * d + 2.0 * d * f;
  const double outputs = 4.0 * d + f + d;
  const double per_element = dtype == ComputeDtype::kF32    ? 4.0
                             : dtype == ComputeDtype::kBF16 ? 2.0
                                                            : 1.0;
  const double scales = dtype == ComputeDtype::kInt8 ? 4.0 * outputs : 0.0;
  return (elements * per_element + scales + 4.0 * outputs) * static_cast<double>(c.layers);
}

void BM_Encoder(benchmark::State& state, std::string preset, int64_t batch, int64_t seq,
                int threads, ComputeDtype dtype) {
  if (const std::string reason = tinyenc::dtype_unsupported_reason(dtype); !reason.empty()) {
    state.SkipWithError(reason.c_str());
    return;
  }
  omp_set_num_threads(threads);
  EncoderConfig config = *tinyenc::preset_config(preset);
  config.dtype = dtype;
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
  state.counters["weight_GB/s"] = benchmark::Counter(weight_bytes(config, dtype) * 1e-9,
                                                     benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(encoder.matmul_implementation());
}

// 32 texts of corpus-like lengths (mostly 5-40 tokens, one of 128), in the order a length-sorted
// batcher hands them over: as one padded batch, or packed end to end (EncoderInput::packed).
// tokens/s counts real tokens only, so the two layouts compare directly.
void BM_Encoder_mixed(benchmark::State& state, std::string preset, bool packed, int threads) {
  omp_set_num_threads(threads);
  EncoderConfig config = *tinyenc::preset_config(preset);
  Encoder encoder(config, tinyenc::random_encoder_weights(config, 42));
  std::mt19937 random(11);
  std::uniform_int_distribution<int32_t> length(5, 40), token(1000, 29000);
  std::vector<int32_t> lengths(32);
  for (int32_t& l : lengths) l = length(random);
  lengths.back() = 128;
  std::sort(lengths.begin(), lengths.end());
  const int64_t real = std::accumulate(lengths.begin(), lengths.end(), int64_t{0});
  const int64_t batch = static_cast<int64_t>(lengths.size()), seq = lengths.back();
  std::vector<int32_t> ids(static_cast<size_t>(packed ? real : batch * seq), 0);
  for (int32_t& id : ids) id = token(random);
  tinyenc::EncoderInput input;
  input.batch = batch;
  input.seq = seq;
  input.ids = ids.data();
  input.lengths = lengths.data();
  input.packed = packed;
  encoder.forward(input);
  for (auto _ : state) {
    tinyenc::EncoderOutput output = encoder.forward(input);
    benchmark::DoNotOptimize(output.last_hidden.data());
  }
  state.counters["tokens/s"] =
      benchmark::Counter(static_cast<double>(real), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["padding"] = packed ? 0.0 : 1.0 - static_cast<double>(real) / (batch * seq);
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

// tinyenc's int8 Linear, x [n, n] times an [n, n] weight, quantization of x included.
void BM_Matmul_int8(benchmark::State& state, int64_t n, int threads) {
  omp_set_num_threads(threads);
  tinyenc::Runtime runtime;
  std::vector<float> weights(static_cast<size_t>(n * n)), x(static_cast<size_t>(n * n));
  std::vector<float> y(x.size());
  std::mt19937 random(3);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (float& w : weights) w = normal(random);
  for (float& v : x) v = normal(random);
  tinyenc::Linear linear(runtime, tinyenc::LinearSource::of_f32(weights.data(), n, n), nullptr,
                         ComputeDtype::kInt8);
  linear(x.data(), n, y.data());
  for (auto _ : state) {
    linear(x.data(), n, y.data());
    benchmark::DoNotOptimize(y.data());
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(2.0 * n * n * n * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(linear.implementation());
}

// Copies `bytes` between two buffers: bytes_per_second is the bandwidth a stream over that
// many bytes of weights can reach (each copied byte is read once and written once).
void BM_Memcpy(benchmark::State& state, int64_t bytes) {
  std::vector<char> from(static_cast<size_t>(bytes), 1), to(static_cast<size_t>(bytes), 0);
  for (auto _ : state) {
    std::memcpy(to.data(), from.data(), from.size());
    benchmark::DoNotOptimize(to.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * bytes);
}

}  // namespace

int main(int argc, char** argv) {
  for (int threads : {1, 2}) {
    benchmark::RegisterBenchmark(("BM_Matmul/1024/" + std::to_string(threads)).c_str(), BM_Matmul,
                                 1024, threads)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark(("BM_Matmul_int8/1024/" + std::to_string(threads)).c_str(),
                                 BM_Matmul_int8, 1024, threads)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  // 1 MiB (caches), 64 MiB, and the base preset's int8 weights (85 MB).
  const EncoderConfig base = *tinyenc::preset_config("base");
  for (int64_t bytes : {int64_t{1} << 20, int64_t{64} << 20,
                        static_cast<int64_t>(weight_bytes(base, ComputeDtype::kInt8))}) {
    benchmark::RegisterBenchmark(("BM_Memcpy/" + std::to_string(bytes)).c_str(), BM_Memcpy, bytes)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  for (const char* preset : {"mini", "base"}) {
    for (bool packed : {false, true}) {
      for (int threads : {1, 2}) {
        const std::string name = std::string("BM_Encoder_mixed/") + preset +
                                 (packed ? "/packed/" : "/padded/") + std::to_string(threads);
        benchmark::RegisterBenchmark(name.c_str(), BM_Encoder_mixed, preset, packed, threads)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
      }
    }
  }
  const std::pair<const char*, ComputeDtype> dtypes[] = {{"BM_Encoder/", ComputeDtype::kF32},
                                                         {"BM_Encoder_int8/", ComputeDtype::kInt8},
                                                         {"BM_Encoder_bf16/", ComputeDtype::kBF16}};
  for (const auto& [prefix, dtype] : dtypes)
    for (const char* preset : {"tiny", "mini", "small", "base"}) {
      for (int64_t batch : {1, 8}) {
        for (int64_t seq : {8, 32, 128, 512}) {
          for (int threads : {1, 2}) {
            const std::string name = std::string(prefix) + preset + "/" + std::to_string(batch) +
                                     "/" + std::to_string(seq) + "/" + std::to_string(threads);
            benchmark::RegisterBenchmark(name.c_str(), BM_Encoder, preset, batch, seq, threads,
                                         dtype)
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
