// Google Benchmark suite for tinyenc's position-encoding stage (engine/pe): the fused embedding
// pass against its unfused equivalent and against memcpy (the roofline), RoPE, and the
// table-versus-recurrence question for sinusoidal rows. See bench/README.md for how to run it and
// what the figures mean.
//
// Every benchmark reports bytes/s = (bytes read + bytes written) / time and items/s = tokens /
// time. The targets are single-threaded: OpenMP runs one thread unless --pe_threads=N says
// otherwise (see configure() for which clock is used).
#include <benchmark/benchmark.h>
#include <omp.h>

#if defined(__x86_64__)
// GCC 12 warns inside its own avx512fintrin.h (_mm512_undefined_ps, GCC bug 105593) when the
// AVX-512 copy of the passes below inlines it; the warning is located in the header, so ignoring
// it there alone suffices (the engine passes -Wno-maybe-uninitialized to its AVX-512 unit).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/isa.h"
#include "engine/pe/kernel_table.h"
#include "engine/pe/kernels.h"
#include "engine/pe/position_encoding.h"
#include "engine/pe/rope.h"
#include "engine/pe/sinusoidal.h"
#include "engine/pe/vec_scalar.h"

namespace tinyenc_bench {

// The recurrence kernel's arguments (pe_bench_passes.h, embed_recurrence).
struct RecurrenceArgs {
  const tinyenc::EmbeddingArgs* embedding = nullptr;  // its position table is not read
  tinyenc::SinusoidalParams params;
  const float* step_cos = nullptr;  // [d_model]: cos w_i at 2i and 2i + 1
  const float* step_sin = nullptr;  // [d_model]: sin w_i at 2i, -sin w_i at 2i + 1
};

}  // namespace tinyenc_bench

// One copy of the benchmark-only kernels per ISA, each compiled for that ISA alone (the bench
// translation unit itself targets baseline x86-64, like the engine's scalar kernels).
#define PE_BENCH_NAMESPACE scalar
#define PE_BENCH_VEC tinyenc::detail::VecScalar
#include "bench/pe_bench_passes.h"
#undef PE_BENCH_NAMESPACE
#undef PE_BENCH_VEC

#if defined(__x86_64__)
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#include "engine/pe/vec_avx2.h"
#define PE_BENCH_NAMESPACE avx2
#define PE_BENCH_VEC tinyenc::detail::VecAvx2
#include "bench/pe_bench_passes.h"
#undef PE_BENCH_NAMESPACE
#undef PE_BENCH_VEC
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx512f,avx512vl,avx512dq,avx2,fma")
#include "engine/pe/vec_avx512.h"
#define PE_BENCH_NAMESPACE avx512
#define PE_BENCH_VEC tinyenc::detail::VecAvx512
#include "bench/pe_bench_passes.h"
#undef PE_BENCH_NAMESPACE
#undef PE_BENCH_VEC
#pragma GCC pop_options
#endif

namespace tinyenc_bench {
namespace {

using tinyenc::Isa;

constexpr int64_t kVocabSize = 30522;     // BERT's WordPiece vocabulary
constexpr int64_t kSequenceLength = 512;  // position ids cycle 0..511; PE tables have 512 rows
constexpr int64_t kTokenTypes = 2;
constexpr int64_t kMinParallelFloats = 1 << 16;  // as engine/pe/dispatch.cc

// ---------------------------------------------------------------------------------------------
// Data: 64-byte aligned, every page touched before timing, random contents, cached per shape so
// that the benchmarks share one copy of each (the 30522-row tables are 31 to 125 MB).

struct FreeDeleter {
  void operator()(void* pointer) const { std::free(pointer); }
};
template <class T>
using Buffer = std::unique_ptr<T[], FreeDeleter>;

template <class T>
Buffer<T> allocate(int64_t count) {
  const size_t bytes = (static_cast<size_t>(count) * sizeof(T) + 63) / 64 * 64;
  void* pointer = std::aligned_alloc(64, bytes);
  if (pointer == nullptr) throw std::bad_alloc();
  std::memset(pointer, 0, bytes);
  return Buffer<T>(static_cast<T*>(pointer));
}

// splitmix64: fast enough to fill 31M floats in a blink, and reproducible.
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  float uniform(float low, float high) {
    return low + (high - low) * static_cast<float>(next() >> 40) * 0x1.0p-24f;
  }

 private:
  uint64_t state_;
};

Buffer<float> random_floats(int64_t count, float low, float high, uint64_t seed) {
  Buffer<float> values = allocate<float>(count);
  Random random(seed);
  for (int64_t i = 0; i < count; ++i) values[i] = random.uniform(low, high);
  return values;
}

class Data {
 public:
  const float* token_table(int64_t d_model) {
    return cached(token_tables_, d_model,
                  [&] { return random_floats(kVocabSize * d_model, -0.1f, 0.1f, 1000 + d_model); });
  }
  const float* learned_positions(int64_t d_model) {
    return cached(learned_positions_, d_model, [&] {
      return random_floats(kSequenceLength * d_model, -0.1f, 0.1f, 2000 + d_model);
    });
  }
  const float* token_type_table(int64_t d_model) {
    return cached(token_type_tables_, d_model, [&] {
      return random_floats(kTokenTypes * d_model, -0.1f, 0.1f, 3000 + d_model);
    });
  }
  const float* gamma(int64_t d_model) {
    return cached(gammas_, d_model,
                  [&] { return random_floats(d_model, 0.5f, 1.5f, 4000 + d_model); });
  }
  const float* beta(int64_t d_model) {
    return cached(betas_, d_model,
                  [&] { return random_floats(d_model, -0.1f, 0.1f, 5000 + d_model); });
  }
  // The seed module's interleaved table, grown to kSequenceLength rows before any timing.
  const float* sinusoidal_table(int64_t d_model) {
    auto found = sinusoidal_tables_.find(d_model);
    if (found == sinusoidal_tables_.end()) {
      auto table = std::make_unique<tinyenc::SinusoidalTable>(d_model, tinyenc::SinusoidalParams{});
      table->rows(kSequenceLength);
      found = sinusoidal_tables_.emplace(d_model, std::move(table)).first;
    }
    return found->second->rows(kSequenceLength);
  }
  const tinyenc::RopeTable& rope_table(int64_t rotary_dim) {
    auto found = rope_tables_.find(rotary_dim);
    if (found == rope_tables_.end()) {
      auto table = std::make_unique<tinyenc::RopeTable>(rotary_dim, 10000.0);
      table->reserve(kSequenceLength);
      found = rope_tables_.emplace(rotary_dim, std::move(table)).first;
    }
    return *found->second;
  }
  // Uniformly random WordPiece ids: a realistic gather, rows scattered over the whole table.
  const int32_t* token_ids(int64_t tokens) {
    return cached(token_ids_, tokens, [&] {
      Buffer<int32_t> ids = allocate<int32_t>(tokens);
      Random random(6000 + tokens);
      for (int64_t t = 0; t < tokens; ++t) {
        ids[t] = static_cast<int32_t>(random.next() % static_cast<uint64_t>(kVocabSize));
      }
      return ids;
    });
  }
  // Sequences of kSequenceLength tokens back to back: 0, 1, .., 511, 0, 1, ..
  const int32_t* position_ids(int64_t tokens) {
    return cached(position_ids_, tokens, [&] {
      Buffer<int32_t> ids = allocate<int32_t>(tokens);
      for (int64_t t = 0; t < tokens; ++t) ids[t] = static_cast<int32_t>(t % kSequenceLength);
      return ids;
    });
  }
  // BERT sentence pairs: segment A (type 0) is the first half of each sequence, B the rest.
  const int32_t* token_type_ids(int64_t tokens) {
    return cached(token_type_ids_, tokens, [&] {
      Buffer<int32_t> ids = allocate<int32_t>(tokens);
      for (int64_t t = 0; t < tokens; ++t) {
        ids[t] = (t % kSequenceLength) < kSequenceLength / 2 ? 0 : 1;
      }
      return ids;
    });
  }
  float* output(int64_t floats) {
    return cached(outputs_, floats, [&] { return allocate<float>(floats); });
  }
  float* qkv(int64_t floats) {
    return cached(qkvs_, floats, [&] { return random_floats(floats, -1.0f, 1.0f, 7000 + floats); });
  }
  const float* memcpy_source(int64_t floats) {
    return cached(memcpy_sources_, floats,
                  [&] { return random_floats(floats, -1.0f, 1.0f, 8000 + floats); });
  }

 private:
  template <class T, class Make>
  static T* cached(std::map<int64_t, Buffer<T>>& cache, int64_t key, Make make) {
    auto found = cache.find(key);
    if (found == cache.end()) found = cache.emplace(key, make()).first;
    return found->second.get();
  }

  std::map<int64_t, Buffer<float>> token_tables_, learned_positions_, token_type_tables_, gammas_,
      betas_, outputs_, qkvs_, memcpy_sources_;
  std::map<int64_t, Buffer<int32_t>> token_ids_, position_ids_, token_type_ids_;
  std::map<int64_t, std::unique_ptr<tinyenc::SinusoidalTable>> sinusoidal_tables_;
  std::map<int64_t, std::unique_ptr<tinyenc::RopeTable>> rope_tables_;
};

Data& data() {
  static Data instance;
  return instance;
}

// ---------------------------------------------------------------------------------------------
// Helpers shared by the suites.

// Benchmarks of an ISA this CPU cannot run are registered but report an error instead of timing.
bool skip_if_unsupported(benchmark::State& state, Isa isa) {
  if (tinyenc::isa_supported(isa)) return false;
  switch (isa) {
    case Isa::kAvx512:
      state.SkipWithError("avx512 not supported on this CPU");
      break;
    case Isa::kAvx2:
      state.SkipWithError("avx2 not supported on this CPU");
      break;
    default:
      state.SkipWithError("ISA not supported on this CPU");
      break;
  }
  return true;
}

void report(benchmark::State& state, int64_t tokens, int64_t bytes_per_iteration) {
  state.SetItemsProcessed(state.iterations() * tokens);
  state.SetBytesProcessed(state.iterations() * bytes_per_iteration);
}

// Runs fn(begin, end) over token rows the way engine/pe/dispatch.cc splits its kernels, so the
// unfused passes and the recurrence thread exactly like embed_tokens with --pe_threads > 1.
template <class Fn>
void for_row_ranges(int64_t tokens, int64_t d_model, const Fn& fn) {
  if (tokens * d_model < kMinParallelFloats || omp_get_max_threads() == 1) {
    fn(0, tokens);
    return;
  }
#pragma omp parallel
  {
    const int64_t threads = omp_get_num_threads();
    const int64_t thread = omp_get_thread_num();
    fn(tokens * thread / threads, tokens * (thread + 1) / threads);
  }
}

// The benchmark-only kernels of one ISA (pe_bench_passes.h).
struct Passes {
  void (*add_rows)(float* out, int64_t d_model, const float* table, const int32_t* ids,
                   int64_t begin, int64_t end);
  void (*layer_norm_rows)(float* out, int64_t d_model, const float* gamma, const float* beta,
                          float epsilon, int64_t begin, int64_t end);
  void (*embed_recurrence)(const RecurrenceArgs& args, int64_t begin, int64_t end, float* state,
                           float* scratch);
  void (*embed_layer_norm)(const tinyenc::EmbeddingArgs& args, int64_t begin, int64_t end,
                           float* scratch);
};

const Passes& passes_for(Isa isa) {
  static const Passes scalar_passes{&scalar::add_rows, &scalar::layer_norm_rows,
                                    &scalar::embed_recurrence, &scalar::embed_layer_norm};
#if defined(__x86_64__)
  static const Passes avx2_passes{&avx2::add_rows, &avx2::layer_norm_rows, &avx2::embed_recurrence,
                                  &avx2::embed_layer_norm};
  static const Passes avx512_passes{&avx512::add_rows, &avx512::layer_norm_rows,
                                    &avx512::embed_recurrence, &avx512::embed_layer_norm};
  if (isa == Isa::kAvx2) return avx2_passes;
  if (isa == Isa::kAvx512) return avx512_passes;
#endif
  return scalar_passes;
}

// The engine's kernels of one ISA, called directly by the *_Kernel suites: no argument validation
// and no ISA check per call (embed_tokens and rotate_queries_keys do both on every call). The
// caller has checked isa_supported once.
const tinyenc::detail::PeKernelTable& engine_kernels(Isa isa) {
#if defined(__x86_64__)
  if (isa == Isa::kAvx2) return tinyenc::detail::kAvx2PeKernels;
  if (isa == Isa::kAvx512) return tinyenc::detail::kAvx512PeKernels;
#endif
  return tinyenc::detail::kScalarPeKernels;
}

void check_ids(const int32_t* ids, int64_t count, int64_t rows) {
  for (int64_t t = 0; t < count; ++t) {
    if (ids[t] < 0 || ids[t] >= rows) throw std::out_of_range("pe_bench: id out of range");
  }
}

// The id checks embed_tokens makes on every call, for the candidates compared with it.
void check_embedding_ids(const tinyenc::EmbeddingArgs& args) {
  check_ids(args.token_ids, args.tokens, args.vocab_size);
  if (args.position_ids) check_ids(args.position_ids, args.tokens, args.position_rows);
  if (args.token_type_ids) check_ids(args.token_type_ids, args.tokens, args.token_type_rows);
}

// embed_tokens without its per-call ISA check (the check_ids are kept): the engine kernel,
// threaded as dispatch.cc threads it.
void run_embedding_kernel(const tinyenc::EmbeddingArgs& args, Isa isa) {
  check_embedding_ids(args);
  const tinyenc::detail::PeKernelTable& kernels = engine_kernels(isa);
  const bool stream = tinyenc::detail::stream_embedding_output(args);
  for_row_ranges(args.tokens, args.d_model,
                 [&](int64_t begin, int64_t end) { kernels.embed(args, begin, end, stream); });
}

// ---------------------------------------------------------------------------------------------
// Embedding + PE (+ token type) (+ LayerNorm).

enum class Kind { kSinusoidal, kLearned, kSinusoidalLn, kLearnedLn };

constexpr Kind kKinds[] = {Kind::kSinusoidal, Kind::kLearned, Kind::kSinusoidalLn,
                           Kind::kLearnedLn};

std::string_view kind_name(Kind kind) {
  switch (kind) {
    case Kind::kSinusoidal:
      return "sinusoidal";
    case Kind::kLearned:
      return "learned";
    case Kind::kSinusoidalLn:
      return "sinusoidal_ln";
    case Kind::kLearnedLn:
      return "learned_ln";
  }
  return "unknown";
}

bool is_sinusoidal(Kind kind) { return kind == Kind::kSinusoidal || kind == Kind::kSinusoidalLn; }
bool has_layer_norm(Kind kind) { return kind == Kind::kSinusoidalLn || kind == Kind::kLearnedLn; }

// sinusoidal: the seed module (x = emb(ids) + pe[:T], then nn.LayerNorm with eps 1e-5 for _ln).
// learned: BERT (word + position + token-type rows, LayerNorm eps 1e-12 for _ln).
tinyenc::EmbeddingArgs embedding_args(Kind kind, int64_t tokens, int64_t d_model) {
  Data& d = data();
  tinyenc::EmbeddingArgs args;
  args.tokens = tokens;
  args.d_model = d_model;
  args.token_ids = d.token_ids(tokens);
  args.token_table = d.token_table(d_model);
  args.vocab_size = kVocabSize;
  args.scale = 1.0f;
  args.position_ids = d.position_ids(tokens);
  args.position_rows = kSequenceLength;
  if (is_sinusoidal(kind)) {
    args.position_table = d.sinusoidal_table(d_model);
  } else {
    args.position_table = d.learned_positions(d_model);
    args.token_type_ids = d.token_type_ids(tokens);
    args.token_type_table = d.token_type_table(d_model);
    args.token_type_rows = kTokenTypes;
  }
  if (has_layer_norm(kind)) {
    args.gamma = d.gamma(d_model);
    args.beta = d.beta(d_model);
    args.epsilon = is_sinusoidal(kind) ? 1e-5f : 1e-12f;
  }
  args.out = d.output(tokens * d_model);
  return args;
}

// The traffic the fused pass cannot avoid: every input row read once (token, position,
// token type), the output row written once, the id arrays, and gamma/beta once.
int64_t embedding_bytes(const tinyenc::EmbeddingArgs& args) {
  const int64_t row = args.d_model * static_cast<int64_t>(sizeof(float));
  const int64_t rows_per_token =
      2 + (args.position_table ? 1 : 0) + (args.token_type_table ? 1 : 0);
  const int64_t ids_per_token = 1 + (args.position_ids ? 1 : 0) + (args.token_type_ids ? 1 : 0);
  return args.tokens * (rows_per_token * row + ids_per_token * int64_t{sizeof(int32_t)}) +
         (args.gamma ? 2 * row : 0);
}

void BM_EmbedPE(benchmark::State& state, Kind kind, Isa isa, int64_t tokens, int64_t d_model) {
  if (skip_if_unsupported(state, isa)) return;
  const tinyenc::EmbeddingArgs args = embedding_args(kind, tokens, d_model);
  for (auto _ : state) {
    tinyenc::embed_tokens(args, isa);
    benchmark::DoNotOptimize(args.out);
    benchmark::ClobberMemory();
  }
  report(state, tokens, embedding_bytes(args));
}

// The same kernel as BM_EmbedPE without embed_tokens' per-call ISA check: the difference between
// the two is the dispatch overhead (see bench/README.md).
void BM_EmbedPE_Kernel(benchmark::State& state, Kind kind, Isa isa, int64_t tokens,
                       int64_t d_model) {
  if (skip_if_unsupported(state, isa)) return;
  const tinyenc::EmbeddingArgs args = embedding_args(kind, tokens, d_model);
  for (auto _ : state) {
    run_embedding_kernel(args, isa);
    benchmark::DoNotOptimize(args.out);
    benchmark::ClobberMemory();
  }
  report(state, tokens, embedding_bytes(args));
}

// A candidate LayerNorm kernel (pe_bench_passes.h, embed_layer_norm: independent accumulators),
// framed exactly like BM_EmbedPE_Kernel. Registered for the _ln kinds only. The counter
// max_abs_diff is its largest difference from the engine kernel's output.
void BM_EmbedPE_Candidate(benchmark::State& state, Kind kind, Isa isa, int64_t tokens,
                          int64_t d_model) {
  if (skip_if_unsupported(state, isa)) return;
  const tinyenc::EmbeddingArgs args = embedding_args(kind, tokens, d_model);
  const Passes& passes = passes_for(isa);
  const auto run = [&] {
    check_embedding_ids(args);
    for_row_ranges(tokens, d_model, [&](int64_t begin, int64_t end) {
      std::vector<float> scratch(static_cast<size_t>(d_model));
      passes.embed_layer_norm(args, begin, end, scratch.data());
    });
  };
  run_embedding_kernel(args, isa);
  const std::vector<float> expected(args.out, args.out + tokens * d_model);
  run();
  double max_abs_diff = 0;
  for (int64_t i = 0; i < tokens * d_model; ++i) {
    max_abs_diff = std::max(max_abs_diff, static_cast<double>(std::abs(args.out[i] - expected[i])));
  }
  for (auto _ : state) {
    run();
    benchmark::DoNotOptimize(args.out);
    benchmark::ClobberMemory();
  }
  report(state, tokens, embedding_bytes(args));
  state.counters["max_abs_diff"] = max_abs_diff;
}

// The same result in separate passes over the output: gather x scale (embed_tokens with the token
// table only), += position row, += token-type row, LayerNorm in place. The bytes figure is the
// fused pass's (so bytes/s compare directly with BM_EmbedPE); the counter pass_bytes/s is what the
// passes really move.
void BM_EmbedPE_Unfused(benchmark::State& state, Kind kind, Isa isa, int64_t tokens,
                        int64_t d_model) {
  if (skip_if_unsupported(state, isa)) return;
  const tinyenc::EmbeddingArgs args = embedding_args(kind, tokens, d_model);
  tinyenc::EmbeddingArgs gather = args;
  gather.position_ids = nullptr;
  gather.position_table = nullptr;
  gather.position_rows = 0;
  gather.token_type_ids = nullptr;
  gather.token_type_table = nullptr;
  gather.token_type_rows = 0;
  gather.gamma = nullptr;
  gather.beta = nullptr;
  const Passes& passes = passes_for(isa);
  float* out = args.out;

  const int64_t row = d_model * static_cast<int64_t>(sizeof(float));
  const int64_t id = sizeof(int32_t);
  int64_t pass_bytes = tokens * (2 * row + id);  // gather: token row in, output out
  pass_bytes += tokens * (3 * row + id);         // += position row: output in and out
  if (args.token_type_table) pass_bytes += tokens * (3 * row + id);
  if (args.gamma) pass_bytes += tokens * 2 * row + 2 * row;

  for (auto _ : state) {
    tinyenc::embed_tokens(gather, isa);
    for_row_ranges(tokens, d_model, [&](int64_t begin, int64_t end) {
      passes.add_rows(out, d_model, args.position_table, args.position_ids, begin, end);
    });
    if (args.token_type_table) {
      for_row_ranges(tokens, d_model, [&](int64_t begin, int64_t end) {
        passes.add_rows(out, d_model, args.token_type_table, args.token_type_ids, begin, end);
      });
    }
    if (args.gamma) {
      for_row_ranges(tokens, d_model, [&](int64_t begin, int64_t end) {
        passes.layer_norm_rows(out, d_model, args.gamma, args.beta, args.epsilon, begin, end);
      });
    }
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
  }
  report(state, tokens, embedding_bytes(args));
  state.counters["pass_bytes/s"] =
      benchmark::Counter(static_cast<double>(state.iterations() * pass_bytes),
                         benchmark::Counter::kIsRate, benchmark::Counter::kIs1024);
}

// ---------------------------------------------------------------------------------------------
// RoPE on a fused QKV projection [tokens, 3 * d_model]: q at column 0, k at d_model.

tinyenc::RopeArgs rope_args(tinyenc::RopePairing pairing, int64_t tokens, int64_t heads,
                            int64_t head_dim) {
  const int64_t d_model = heads * head_dim;
  const tinyenc::RopeTable& table = data().rope_table(head_dim);
  float* qkv = data().qkv(tokens * 3 * d_model);
  tinyenc::RopeArgs args;
  args.tokens = tokens;
  args.heads = heads;
  args.head_dim = head_dim;
  args.rotary_dim = head_dim;
  args.pairing = pairing;
  args.q = qkv;
  args.q_stride = 3 * d_model;
  args.k = qkv + d_model;
  args.k_stride = 3 * d_model;
  args.position_ids = data().position_ids(tokens);
  args.cos = table.cos();
  args.sin = table.sin();
  args.table_positions = table.positions();
  return args;
}

// q and k read and written, one cos and one sin row per token, the position ids.
int64_t rope_bytes(const tinyenc::RopeArgs& args) {
  const int64_t floats_per_token = 2 * 2 * args.heads * args.head_dim + args.rotary_dim;
  return args.tokens * (floats_per_token * int64_t{sizeof(float)} + int64_t{sizeof(int32_t)});
}

// A rotation keeps the norm, so rotating the same buffer again and again stays finite.
void BM_Rope(benchmark::State& state, tinyenc::RopePairing pairing, Isa isa, int64_t tokens,
             int64_t heads, int64_t head_dim) {
  if (skip_if_unsupported(state, isa)) return;
  const tinyenc::RopeArgs args = rope_args(pairing, tokens, heads, head_dim);
  for (auto _ : state) {
    tinyenc::rotate_queries_keys(args, isa);
    benchmark::DoNotOptimize(args.q);
    benchmark::ClobberMemory();
  }
  report(state, tokens, rope_bytes(args));
}

// BM_Rope without rotate_queries_keys' per-call validation and ISA check.
void BM_Rope_Kernel(benchmark::State& state, tinyenc::RopePairing pairing, Isa isa, int64_t tokens,
                    int64_t heads, int64_t head_dim) {
  if (skip_if_unsupported(state, isa)) return;
  const tinyenc::RopeArgs args = rope_args(pairing, tokens, heads, head_dim);
  const tinyenc::detail::PeKernelTable& kernels = engine_kernels(isa);
  for (auto _ : state) {
    check_ids(args.position_ids, args.tokens, args.table_positions);
    for_row_ranges(tokens, 2 * heads * head_dim,
                   [&](int64_t begin, int64_t end) { kernels.rotate(args, begin, end); });
    benchmark::DoNotOptimize(args.q);
    benchmark::ClobberMemory();
  }
  report(state, tokens, rope_bytes(args));
}

// ---------------------------------------------------------------------------------------------
// memcpy of one embedding output: the roofline for a pass that reads and writes that much.

void BM_Memcpy(benchmark::State& state, int64_t bytes) {
  const int64_t floats = bytes / static_cast<int64_t>(sizeof(float));
  const float* source = data().memcpy_source(floats);
  float* destination = data().output(floats);
  const bool parallel = floats >= kMinParallelFloats && omp_get_max_threads() > 1;
  for (auto _ : state) {
    if (parallel) {
#pragma omp parallel
      {
        const int64_t threads = omp_get_num_threads();
        const int64_t thread = omp_get_thread_num();
        const int64_t begin = floats * thread / threads;
        const int64_t end = floats * (thread + 1) / threads;
        std::memcpy(destination + begin, source + begin,
                    static_cast<size_t>(end - begin) * sizeof(float));
      }
    } else {
      std::memcpy(destination, source, static_cast<size_t>(bytes));
    }
    benchmark::DoNotOptimize(destination);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * 2 * bytes);
}

// ---------------------------------------------------------------------------------------------
// Sinusoidal rows: read from the cached SinusoidalTable (the engine's kernel, as in
// BM_EmbedPE_Kernel) or generated on the fly by the angle-addition recurrence
// (pe_bench_passes.h, embed_recurrence). Both check the ids and skip the per-call ISA check, so
// they differ only in where the position row comes from.

enum class RowSource { kTable, kRecurrence };

struct RecurrenceSteps {
  std::vector<float> step_cos;
  std::vector<float> step_sin;
};

RecurrenceSteps recurrence_steps(int64_t d_model) {
  const std::vector<float> frequencies =
      tinyenc::sinusoidal_frequencies(d_model, tinyenc::SinusoidalParams{}.base);
  RecurrenceSteps steps{std::vector<float>(static_cast<size_t>(d_model)),
                        std::vector<float>(static_cast<size_t>(d_model))};
  for (size_t i = 0; i < frequencies.size(); ++i) {
    const double w = frequencies[i];
    steps.step_cos[2 * i] = steps.step_cos[2 * i + 1] = static_cast<float>(std::cos(w));
    steps.step_sin[2 * i] = static_cast<float>(std::sin(w));
    steps.step_sin[2 * i + 1] = -static_cast<float>(std::sin(w));
  }
  return steps;
}

void run_recurrence(const RecurrenceArgs& args, Isa isa) {
  const tinyenc::EmbeddingArgs& embedding = *args.embedding;
  check_embedding_ids(embedding);
  const Passes& passes = passes_for(isa);
  for_row_ranges(embedding.tokens, embedding.d_model, [&](int64_t begin, int64_t end) {
    std::vector<float> state(static_cast<size_t>(2 * embedding.d_model));
    passes.embed_recurrence(args, begin, end, state.data(), state.data() + embedding.d_model);
  });
}

// How far the recurrence drifts: rows 0..steps generated by the ISA's kernel from (0, 1) at
// position 0, against the SinusoidalTable (float32 angle, sinf/cosf) and against double precision
// sin/cos of position * frequency. Also the table's own distance from double precision.
struct RecurrenceError {
  double vs_table = 0;
  double vs_double = 0;
  double table_vs_double = 0;
};

RecurrenceError recurrence_error(Isa isa, int64_t d_model, int64_t steps) {
  const int64_t rows = steps + 1;
  const std::vector<float> zero_row(static_cast<size_t>(d_model), 0.0f);
  const std::vector<int32_t> ids(static_cast<size_t>(rows), 0);
  std::vector<float> generated(static_cast<size_t>(rows * d_model));
  tinyenc::EmbeddingArgs embedding;
  embedding.tokens = rows;
  embedding.d_model = d_model;
  embedding.token_ids = ids.data();
  embedding.token_table = zero_row.data();
  embedding.vocab_size = 1;
  embedding.out = generated.data();
  const RecurrenceSteps step = recurrence_steps(d_model);
  const RecurrenceArgs args{&embedding, tinyenc::SinusoidalParams{}, step.step_cos.data(),
                            step.step_sin.data()};
  std::vector<float> state(static_cast<size_t>(2 * d_model));
  passes_for(isa).embed_recurrence(args, 0, rows, state.data(), state.data() + d_model);

  tinyenc::SinusoidalTable table(d_model, tinyenc::SinusoidalParams{});
  const float* table_rows = table.rows(rows);
  const std::vector<float> frequencies =
      tinyenc::sinusoidal_frequencies(d_model, tinyenc::SinusoidalParams{}.base);
  RecurrenceError error;
  for (int64_t position = 0; position < rows; ++position) {
    for (int64_t j = 0; j < d_model; ++j) {
      const double angle = static_cast<double>(position) * static_cast<double>(frequencies[j / 2]);
      const double exact = j % 2 == 0 ? std::sin(angle) : std::cos(angle);
      const double value = generated[position * d_model + j];
      const double from_table = table_rows[position * d_model + j];
      error.vs_table = std::max(error.vs_table, std::abs(value - from_table));
      error.vs_double = std::max(error.vs_double, std::abs(value - exact));
      error.table_vs_double = std::max(error.table_vs_double, std::abs(from_table - exact));
    }
  }
  return error;
}

void BM_SinusoidalRows(benchmark::State& state, RowSource source, Kind kind, Isa isa,
                       int64_t tokens, int64_t d_model) {
  if (skip_if_unsupported(state, isa)) return;
  const tinyenc::EmbeddingArgs args = embedding_args(kind, tokens, d_model);
  if (source == RowSource::kTable) {
    for (auto _ : state) {
      run_embedding_kernel(args, isa);
      benchmark::DoNotOptimize(args.out);
      benchmark::ClobberMemory();
    }
  } else {
    const RecurrenceSteps steps = recurrence_steps(d_model);
    const RecurrenceArgs recurrence{&args, tinyenc::SinusoidalParams{}, steps.step_cos.data(),
                                    steps.step_sin.data()};
    for (auto _ : state) {
      run_recurrence(recurrence, isa);
      benchmark::DoNotOptimize(args.out);
      benchmark::ClobberMemory();
    }
    const RecurrenceError error = recurrence_error(isa, d_model, kSequenceLength);
    state.counters["err_vs_table"] = error.vs_table;
    state.counters["err_vs_double"] = error.vs_double;
    state.counters["table_err_vs_double"] = error.table_vs_double;
  }
  // Both report the table pass's bytes, so bytes/s compare directly (the recurrence reads no
  // position row: its own traffic is one row per token less).
  report(state, tokens, embedding_bytes(args));
}

// ---------------------------------------------------------------------------------------------
// Registration: names are exactly BM_<suite>/<parameters>, no Google Benchmark arguments.

struct Shape {
  int64_t tokens;
  int64_t d_model;
};

// (128, 256) and (512, 512) are the PyTorch comparison's shapes (compare_pe_pytorch.py);
// 16384 tokens = 32 sequences of 512.
constexpr Shape kEmbedShapes[] = {{128, 256}, {512, 512}, {512, 768}, {16384, 1024}};
constexpr Shape kRecurrenceShapes[] = {{512, 768}, {16384, 1024}};

struct RopeShape {
  int64_t tokens;
  int64_t heads;
  int64_t head_dim;
};
constexpr RopeShape kRopeShapes[] = {{512, 12, 64}, {128, 4, 64}, {16384, 16, 64}};

std::vector<Isa> benchmarked_isas() {
#if defined(__x86_64__)
  return {Isa::kScalar, Isa::kAvx2, Isa::kAvx512};
#else
  return tinyenc::compiled_isas();
#endif
}

template <class... Parts>
std::string join(const Parts&... parts) {
  std::string name;
  ((name += (name.empty() ? "" : "/"), name += parts), ...);
  return name;
}

std::string text(std::string_view view) { return std::string(view); }

// Single-threaded (the default), the names are exactly BM_<suite>/<parameters> and rates are per
// CPU second of the benchmark thread, which on a shared machine leaves out the time the thread
// was descheduled. With --pe_threads > 1 the main thread's CPU time no longer covers the work, so
// timing switches to wall time (Google Benchmark then appends "/real_time" to every name).
void configure(benchmark::internal::Benchmark* benchmark) {
  benchmark->Unit(benchmark::kMicrosecond);
  if (omp_get_max_threads() > 1) benchmark->UseRealTime();
}

using EmbedFunction = void (*)(benchmark::State&, Kind, Isa, int64_t, int64_t);
using RopeFunction = void (*)(benchmark::State&, tinyenc::RopePairing, Isa, int64_t, int64_t,
                              int64_t);

void register_benchmarks() {
  const std::vector<Isa> isas = benchmarked_isas();
  const std::pair<const char*, EmbedFunction> embed_suites[] = {
      {"BM_EmbedPE", BM_EmbedPE},
      {"BM_EmbedPE_Unfused", BM_EmbedPE_Unfused},
      {"BM_EmbedPE_Kernel", BM_EmbedPE_Kernel}};
  for (const auto& [suite, function] : embed_suites) {
    for (Kind kind : kKinds) {
      for (Isa isa : isas) {
        for (Shape shape : kEmbedShapes) {
          const std::string name =
              join(std::string(suite), text(kind_name(kind)), text(tinyenc::isa_name(isa)),
                   std::to_string(shape.tokens), std::to_string(shape.d_model));
          configure(benchmark::RegisterBenchmark(name.c_str(), function, kind, isa, shape.tokens,
                                                 shape.d_model));
        }
      }
    }
  }
  for (Kind kind : {Kind::kSinusoidalLn, Kind::kLearnedLn}) {
    for (Isa isa : isas) {
      if (isa == Isa::kScalar) continue;  // the scalar path is the specification, not a target
      for (Shape shape : kEmbedShapes) {
        const std::string name = join(std::string("BM_EmbedPE_Candidate"), text(kind_name(kind)),
                                      text(tinyenc::isa_name(isa)), std::to_string(shape.tokens),
                                      std::to_string(shape.d_model));
        configure(benchmark::RegisterBenchmark(name.c_str(), BM_EmbedPE_Candidate, kind, isa,
                                               shape.tokens, shape.d_model));
      }
    }
  }
  const std::pair<const char*, RopeFunction> rope_suites[] = {{"BM_Rope", BM_Rope},
                                                              {"BM_Rope_Kernel", BM_Rope_Kernel}};
  for (const auto& [suite, function] : rope_suites) {
    for (tinyenc::RopePairing pairing :
         {tinyenc::RopePairing::kHalf, tinyenc::RopePairing::kInterleaved}) {
      for (Isa isa : isas) {
        for (RopeShape shape : kRopeShapes) {
          const std::string name =
              join(std::string(suite), text(tinyenc::rope_pairing_name(pairing)),
                   text(tinyenc::isa_name(isa)), std::to_string(shape.tokens),
                   std::to_string(shape.heads), std::to_string(shape.head_dim));
          configure(benchmark::RegisterBenchmark(name.c_str(), function, pairing, isa, shape.tokens,
                                                 shape.heads, shape.head_dim));
        }
      }
    }
  }
  for (Shape shape : kEmbedShapes) {
    const int64_t bytes = shape.tokens * shape.d_model * static_cast<int64_t>(sizeof(float));
    const std::string name = join(std::string("BM_Memcpy"), std::to_string(bytes));
    configure(benchmark::RegisterBenchmark(name.c_str(), BM_Memcpy, bytes));
  }
  for (Kind kind : {Kind::kSinusoidal, Kind::kSinusoidalLn}) {
    for (Isa isa : isas) {
      for (Shape shape : kRecurrenceShapes) {
        for (RowSource source : {RowSource::kTable, RowSource::kRecurrence}) {
          const std::string name =
              join(std::string("BM_SinusoidalRows"),
                   std::string(source == RowSource::kTable ? "table" : "recurrence"),
                   text(kind_name(kind)), text(tinyenc::isa_name(isa)),
                   std::to_string(shape.tokens), std::to_string(shape.d_model));
          configure(benchmark::RegisterBenchmark(name.c_str(), BM_SinusoidalRows, source, kind, isa,
                                                 shape.tokens, shape.d_model));
        }
      }
    }
  }
}

// --pe_threads=N (default 1): the OpenMP threads the kernels may use. Removed from argv before
// Google Benchmark parses the rest.
int take_thread_flag(int* argc, char** argv) {
  constexpr std::string_view kFlag = "--pe_threads=";
  int threads = 1;
  int kept = 1;
  for (int i = 1; i < *argc; ++i) {
    const std::string_view argument = argv[i];
    if (argument.substr(0, kFlag.size()) == kFlag) {
      threads = std::stoi(std::string(argument.substr(kFlag.size())));
      if (threads < 1) throw std::invalid_argument("must be >= 1");
    } else {
      argv[kept++] = argv[i];
    }
  }
  *argc = kept;
  return threads;
}

}  // namespace
}  // namespace tinyenc_bench

int main(int argc, char** argv) {
  int threads = 1;
  try {
    threads = tinyenc_bench::take_thread_flag(&argc, argv);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "pe_bench: bad --pe_threads: %s\n", error.what());
    return 1;
  }
  omp_set_num_threads(threads);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("pe_threads", std::to_string(threads));
  benchmark::AddCustomContext("best_isa",
                              std::string(tinyenc::isa_name(tinyenc::best_supported_isa())));
  benchmark::AddCustomContext(
      "avx512", tinyenc::isa_supported(tinyenc::Isa::kAvx512) ? "supported" : "not supported");
  benchmark::AddCustomContext("vocab_size", std::to_string(tinyenc_bench::kVocabSize));
  tinyenc_bench::register_benchmarks();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
