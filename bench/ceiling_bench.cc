// What this CPU allows one thread, measured in the same run as the Linear layers that a forward
// pass spends its time in, so that an encoder figure can be read as a share of a ceiling:
//
//   BM_FmaPeak/<isa>          multiply-adds on registers only (10 independent accumulators per
//                             vector width): the arithmetic ceiling, in GFLOP/s.
//   BM_AmxPeak/<int8|bf16>    AMX tile dot products on tiles only (4 accumulator tiles, 2 x 2
//                             blocking of full 16 x 64-byte tiles), on CPUs with AMX: the
//                             ceiling of the int8 and bf16 Linear layers there, in GOP/s.
//   BM_ReadBandwidth/<bytes>  one pass of vector loads over a buffer larger than the caches: the
//                             rate a forward pass can stream its weights at (bytes_per_second).
//   BM_Linear/<dtype>/<rows>/<in>/<out>
//                             tinyenc's Linear (its own choice of oneDNN primitive, int8's
//                             activation quantization included) at the shapes of the shipped
//                             presets: base at 8 and 128 rows, and mini at the 1024 rows of a
//                             corpus batch. Its weights are cycled over enough copies (96 MB at
//                             least) that they come from memory, as in a real forward pass.
//                             Counters: GFLOP/s and weight_GB/s; label: oneDNN's implementation.
//   BM_Bf16DotPeak            AVX512_BF16 dot products on registers only (vdpbf16ps, 10
//                             accumulators), where the CPU has them: the bf16 ceiling without
//                             AMX, in GFLOP/s.
//   BM_VnniPeak               AVX-512 VNNI u8 x s8 dot products on registers only (vpdpbusd, 10
//                             accumulators), where the CPU has them: the int8 ceiling without
//                             AMX, in GOP/s.
//   BM_TileProduct/<int8|bf16>/<rows>/<in>/<out>
//                             tinyenc's own AMX tile product alone, on the same cycled weights.
//   BM_OneDnnF32/<primitive>/<rows>/<in>/<out>
//                             the f32 primitives oneDNN offers for a Linear, on the same cycled
//                             weights: matmul reading torch's [out, in] matrix in place ("ba"),
//                             inner product and 1x1 convolution with weights reordered once into
//                             the layout each asks for ("any").
//
//   build/bench/ceiling_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <oneapi/dnnl/dnnl.hpp>
#include <random>
#include <string>
#include <vector>

#include "engine/dtype.h"
#include "engine/isa.h"
#include "engine/layers/linear.h"
#include "engine/ops/tile_product.h"

#if defined(__x86_64__)
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace {

using tinyenc::ComputeDtype;

// Weights cycled over at least this many bytes come from memory, not from a cache (the largest
// last-level cache seen on these machines is 32 MB).
constexpr int64_t kColdBytes = int64_t{96} << 20;

struct Shape {
  int64_t rows, in, out;
};

// base (768/3072) from a short input to a long one, mini (256/1024) at a corpus batch.
constexpr Shape kShapes[] = {
    {8, 768, 2304},   {8, 768, 3072},    {8, 3072, 768},   {128, 768, 2304}, {128, 768, 3072},
    {128, 3072, 768}, {256, 768, 3072},  {256, 3072, 768}, {512, 768, 3072}, {512, 3072, 768},
    {1024, 256, 768}, {1024, 256, 1024}, {1024, 1024, 256}};

std::string shape_name(const Shape& s) {
  return std::to_string(s.rows) + "/" + std::to_string(s.in) + "/" + std::to_string(s.out);
}

double flops(const Shape& s) { return 2.0 * static_cast<double>(s.rows * s.in * s.out); }

int64_t copies_for(int64_t bytes_each) {
  return std::clamp<int64_t>((kColdBytes + bytes_each - 1) / bytes_each, 1, 256);
}

std::vector<float> normal_values(int64_t count, uint32_t seed) {
  std::mt19937 random(seed);
  std::normal_distribution<float> normal(0.0f, 0.05f);
  std::vector<float> values(static_cast<size_t>(count));
  for (float& v : values) v = normal(random);
  return values;
}

#if defined(__x86_64__)
__attribute__((target("avx2,fma"), noinline)) double fma_avx2(int64_t iterations) {
  // Distinct starting values: from equal ones the compiler computes the ten chains as one.
  __m256 a0 = _mm256_set1_ps(0.10f), a1 = _mm256_set1_ps(0.11f), a2 = _mm256_set1_ps(0.12f),
         a3 = _mm256_set1_ps(0.13f), a4 = _mm256_set1_ps(0.14f), a5 = _mm256_set1_ps(0.15f),
         a6 = _mm256_set1_ps(0.16f), a7 = _mm256_set1_ps(0.17f), a8 = _mm256_set1_ps(0.18f),
         a9 = _mm256_set1_ps(0.19f);
  const __m256 b = _mm256_set1_ps(0.9999f), c = _mm256_set1_ps(1e-4f);
  for (int64_t i = 0; i < iterations; ++i) {
    a0 = _mm256_fmadd_ps(a0, b, c);
    a1 = _mm256_fmadd_ps(a1, b, c);
    a2 = _mm256_fmadd_ps(a2, b, c);
    a3 = _mm256_fmadd_ps(a3, b, c);
    a4 = _mm256_fmadd_ps(a4, b, c);
    a5 = _mm256_fmadd_ps(a5, b, c);
    a6 = _mm256_fmadd_ps(a6, b, c);
    a7 = _mm256_fmadd_ps(a7, b, c);
    a8 = _mm256_fmadd_ps(a8, b, c);
    a9 = _mm256_fmadd_ps(a9, b, c);
  }
  const __m256 sum =
      _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)),
                    _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a4, a5), _mm256_add_ps(a6, a7)),
                                  _mm256_add_ps(a8, a9)));
  return static_cast<double>(_mm256_cvtss_f32(sum));
}

__attribute__((target("avx512f"), noinline)) double fma_avx512(int64_t iterations) {
  // Distinct starting values: from equal ones the compiler computes the ten chains as one.
  __m512 a0 = _mm512_set1_ps(0.10f), a1 = _mm512_set1_ps(0.11f), a2 = _mm512_set1_ps(0.12f),
         a3 = _mm512_set1_ps(0.13f), a4 = _mm512_set1_ps(0.14f), a5 = _mm512_set1_ps(0.15f),
         a6 = _mm512_set1_ps(0.16f), a7 = _mm512_set1_ps(0.17f), a8 = _mm512_set1_ps(0.18f),
         a9 = _mm512_set1_ps(0.19f);
  const __m512 b = _mm512_set1_ps(0.9999f), c = _mm512_set1_ps(1e-4f);
  for (int64_t i = 0; i < iterations; ++i) {
    a0 = _mm512_fmadd_ps(a0, b, c);
    a1 = _mm512_fmadd_ps(a1, b, c);
    a2 = _mm512_fmadd_ps(a2, b, c);
    a3 = _mm512_fmadd_ps(a3, b, c);
    a4 = _mm512_fmadd_ps(a4, b, c);
    a5 = _mm512_fmadd_ps(a5, b, c);
    a6 = _mm512_fmadd_ps(a6, b, c);
    a7 = _mm512_fmadd_ps(a7, b, c);
    a8 = _mm512_fmadd_ps(a8, b, c);
    a9 = _mm512_fmadd_ps(a9, b, c);
  }
  const __m512 sum =
      _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)),
                    _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a4, a5), _mm512_add_ps(a6, a7)),
                                  _mm512_add_ps(a8, a9)));
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, sum);
  return static_cast<double>(lanes[0]);
}

__attribute__((target("avx512f,avx512bf16"), noinline)) double bf16_dot_avx512(int64_t iterations) {
  __m512 a[10];
  for (int i = 0; i < 10; ++i) a[i] = _mm512_set1_ps(0.1f + 0.01f * static_cast<float>(i));
  const __m512bh b = reinterpret_cast<__m512bh>(_mm512_set1_epi32(0x3c003c00));  // 2^-7 twice
  for (int64_t i = 0; i < iterations; ++i) {
    for (__m512& accumulator : a) accumulator = _mm512_dpbf16_ps(accumulator, b, b);
  }
  __m512 sum = a[0];
  for (int i = 1; i < 10; ++i) sum = _mm512_add_ps(sum, a[i]);
  return static_cast<double>(_mm512_cvtss_f32(sum));
}

__attribute__((target("avx512f,avx512vnni"), noinline)) int64_t vnni_dot_avx512(
    int64_t iterations) {
  __m512i a[10];
  for (int i = 0; i < 10; ++i) a[i] = _mm512_set1_epi32(i);
  const __m512i u8 = _mm512_set1_epi8(1), s8 = _mm512_set1_epi8(-1);
  for (int64_t i = 0; i < iterations; ++i) {
    for (__m512i& accumulator : a) accumulator = _mm512_dpbusd_epi32(accumulator, u8, s8);
  }
  __m512i sum = a[0];
  for (int i = 1; i < 10; ++i) sum = _mm512_add_epi32(sum, a[i]);
  alignas(64) int32_t lanes[16];
  _mm512_store_si512(lanes, sum);
  return lanes[0];
}

// Linux hands out AMX's tile state only to a process that asks for it (arch_prctl
// ARCH_REQ_XCOMP_PERM for XFEATURE_XTILEDATA).
bool amx_permitted() {
  constexpr int kRequestPermission = 0x1023, kTileData = 18;
  return syscall(SYS_arch_prctl, kRequestPermission, kTileData) == 0;
}

// Palette 1's tile configuration (Intel SDM, LDTILECFG): 8 tiles of 16 rows x 64 bytes.
struct alignas(64) TileConfig {
  uint8_t palette = 1;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t bytes_per_row[16] = {64, 64, 64, 64, 64, 64, 64, 64};
  uint8_t rows[16] = {16, 16, 16, 16, 16, 16, 16, 16};
};

// C[0..3] += A[4..5] B[6..7]: four independent tile products per iteration, as a GEMM's inner
// block does. Returns one sum so nothing is optimised away.
__attribute__((target("amx-tile,amx-int8,amx-bf16"), noinline)) int64_t amx_dot(int64_t iterations,
                                                                                bool bf16) {
  const TileConfig config;
  alignas(64) uint8_t operand[16 * 64];
  for (int i = 0; i < 16 * 64; ++i) operand[i] = static_cast<uint8_t>(i % 7);  // small, finite
  alignas(64) int32_t out[16 * 16];
  _tile_loadconfig(&config);
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  _tile_loadd(4, operand, 64);
  _tile_loadd(5, operand, 64);
  _tile_loadd(6, operand, 64);
  _tile_loadd(7, operand, 64);
  if (bf16) {
    for (int64_t i = 0; i < iterations; ++i) {
      _tile_dpbf16ps(0, 4, 6);
      _tile_dpbf16ps(1, 4, 7);
      _tile_dpbf16ps(2, 5, 6);
      _tile_dpbf16ps(3, 5, 7);
    }
  } else {
    for (int64_t i = 0; i < iterations; ++i) {
      _tile_dpbusd(0, 4, 6);
      _tile_dpbusd(1, 4, 7);
      _tile_dpbusd(2, 5, 6);
      _tile_dpbusd(3, 5, 7);
    }
  }
  _tile_stored(0, out, 64);
  _tile_release();
  return out[0] + out[255];
}

__attribute__((target("avx2"))) uint64_t read_avx2(const char* data, int64_t bytes) {
  __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;
  for (int64_t i = 0; i + 128 <= bytes; i += 128) {
    s0 = _mm256_add_epi64(s0, _mm256_load_si256(reinterpret_cast<const __m256i*>(data + i)));
    s1 = _mm256_add_epi64(s1, _mm256_load_si256(reinterpret_cast<const __m256i*>(data + i + 32)));
    s2 = _mm256_add_epi64(s2, _mm256_load_si256(reinterpret_cast<const __m256i*>(data + i + 64)));
    s3 = _mm256_add_epi64(s3, _mm256_load_si256(reinterpret_cast<const __m256i*>(data + i + 96)));
  }
  const __m256i s = _mm256_add_epi64(_mm256_add_epi64(s0, s1), _mm256_add_epi64(s2, s3));
  return static_cast<uint64_t>(_mm256_extract_epi64(s, 0) + _mm256_extract_epi64(s, 3));
}
#endif

uint64_t read_scalar(const char* data, int64_t bytes) {
  uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (int64_t i = 0; i + 32 <= bytes; i += 32) {
    uint64_t v[4];
    std::memcpy(v, data + i, sizeof v);
    s0 += v[0];
    s1 += v[1];
    s2 += v[2];
    s3 += v[3];
  }
  return s0 + s1 + s2 + s3;
}

void BM_FmaPeak(benchmark::State& state, tinyenc::Isa isa) {
  constexpr int64_t kIterations = 10'000'000;
  double sink = 0.0;
  int64_t lanes = 0;
  for (auto _ : state) {
    int64_t iterations = kIterations;
    benchmark::DoNotOptimize(iterations);  // else the pure call is hoisted out of the loop
#if defined(__x86_64__)
    if (isa == tinyenc::Isa::kAvx512) {
      sink += fma_avx512(iterations);
      lanes = 16;
    } else {
      sink += fma_avx2(iterations);
      lanes = 8;
    }
#else
    (void)isa;
#endif
    benchmark::DoNotOptimize(sink);
  }
  // 10 accumulators x lanes x 2 FLOPs per multiply-add.
  state.counters["GFLOP/s"] =
      benchmark::Counter(20.0 * static_cast<double>(lanes) * kIterations * 1e-9,
                         benchmark::Counter::kIsIterationInvariantRate);
}

#if defined(__x86_64__)
void BM_Bf16DotPeak(benchmark::State& state) {
  constexpr int64_t kIterations = 10'000'000;
  double sink = 0.0;
  for (auto _ : state) {
    int64_t iterations = kIterations;
    benchmark::DoNotOptimize(iterations);
    sink += bf16_dot_avx512(iterations);
    benchmark::DoNotOptimize(sink);
  }
  // 10 accumulators x 16 lanes x 2 pairs x 2 FLOPs.
  state.counters["GFLOP/s"] = benchmark::Counter(10.0 * 16 * 4 * kIterations * 1e-9,
                                                 benchmark::Counter::kIsIterationInvariantRate);
}

void BM_VnniPeak(benchmark::State& state) {
  constexpr int64_t kIterations = 10'000'000;
  int64_t sink = 0;
  for (auto _ : state) {
    int64_t iterations = kIterations;
    benchmark::DoNotOptimize(iterations);
    sink += vnni_dot_avx512(iterations);
    benchmark::DoNotOptimize(sink);
  }
  // 10 accumulators x 16 lanes x 4 products x 2 operations.
  state.counters["GOP/s"] = benchmark::Counter(10.0 * 16 * 8 * kIterations * 1e-9,
                                               benchmark::Counter::kIsIterationInvariantRate);
}

void BM_AmxPeak(benchmark::State& state, bool bf16) {
  if (!amx_permitted()) {
    state.SkipWithError("the kernel did not grant AMX's tile state");
    return;
  }
  constexpr int64_t kIterations = 1'000'000;
  int64_t sink = 0;
  for (auto _ : state) {
    int64_t iterations = kIterations;
    benchmark::DoNotOptimize(iterations);
    sink += amx_dot(iterations, bf16);
    benchmark::DoNotOptimize(sink);
  }
  // Per tile product: 16 x 16 outputs, each a sum over 64 u8 x s8 or 32 bf16 x bf16 pairs;
  // 2 operations per pair.
  const double per_product = 16.0 * 16.0 * (bf16 ? 32.0 : 64.0) * 2.0;
  state.counters[bf16 ? "GFLOP/s" : "GOP/s"] = benchmark::Counter(
      4.0 * per_product * kIterations * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}
#endif

void BM_ReadBandwidth(benchmark::State& state, int64_t bytes) {
  const auto deleter = [](char* p) { std::free(p); };
  std::unique_ptr<char, decltype(deleter)> buffer(
      static_cast<char*>(std::aligned_alloc(64, static_cast<size_t>(bytes))), deleter);
  std::memset(buffer.get(), 1, static_cast<size_t>(bytes));  // touched: real pages, not zero's
  uint64_t sink = 0;
  for (auto _ : state) {
#if defined(__x86_64__)
    sink += tinyenc::isa_supported(tinyenc::Isa::kAvx2) ? read_avx2(buffer.get(), bytes)
                                                        : read_scalar(buffer.get(), bytes);
#else
    sink += read_scalar(buffer.get(), bytes);
#endif
    benchmark::DoNotOptimize(sink);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * bytes);
}

// Copies of one shape's weights with distinct values, each its own allocation.
std::vector<std::vector<float>> weight_copies(const Shape& s, int64_t count) {
  std::vector<std::vector<float>> copies;
  for (int64_t i = 0; i < count; ++i)
    copies.push_back(normal_values(s.in * s.out, static_cast<uint32_t>(17 + i)));
  return copies;
}

void BM_Linear(benchmark::State& state, Shape s, ComputeDtype dtype) {
  if (const std::string why = tinyenc::dtype_unsupported_reason(dtype); !why.empty()) {
    state.SkipWithError(why.c_str());
    return;
  }
  omp_set_num_threads(1);
  const double bytes_per_weight = dtype == ComputeDtype::kF32    ? 4.0
                                  : dtype == ComputeDtype::kBF16 ? 2.0
                                                                 : 1.0;
  const int64_t copies =
      copies_for(static_cast<int64_t>(bytes_per_weight * static_cast<double>(s.in * s.out)));
  const std::vector<std::vector<float>> weights = weight_copies(s, copies);
  const std::vector<float> bias = normal_values(s.out, 5), x = normal_values(s.rows * s.in, 7);
  std::vector<float> y(static_cast<size_t>(s.rows * s.out));
  tinyenc::Runtime runtime;
  std::vector<std::unique_ptr<tinyenc::Linear>> layers;
  for (const auto& w : weights) {
    layers.push_back(std::make_unique<tinyenc::Linear>(
        runtime, tinyenc::LinearSource::of_f32(w.data(), s.out, s.in), bias.data(), dtype));
    (*layers.back())(x.data(), s.rows, y.data());  // primitive and packed weights made here
  }
  size_t next = 0;
  for (auto _ : state) {
    (*layers[next])(x.data(), s.rows, y.data());
    next = (next + 1) % layers.size();
    benchmark::DoNotOptimize(y.data());
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(flops(s) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["weight_GB/s"] =
      benchmark::Counter(bytes_per_weight * static_cast<double>(s.in * s.out) * 1e-9,
                         benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(layers.front()->implementation());
}

// The AMX tile product alone (engine/ops/tile_product.h): the s32 or f32 sums of the same shapes
// on cycled packed weights, without the Linear's passes around it (int8's quantization and
// dequantization, bf16's conversion and bias).
void BM_TileProduct(benchmark::State& state, Shape s, ComputeDtype dtype) {
  namespace tiles = tinyenc::ops::tiles;
  if (!tiles::available(dtype)) {
    state.SkipWithError("no AMX tiles for this dtype here");
    return;
  }
  omp_set_num_threads(1);
  const int64_t bytes = dtype == ComputeDtype::kBF16 ? 2 : 1;
  const std::vector<uint8_t> source(static_cast<size_t>(s.out * s.in * bytes), 1);
  std::vector<std::vector<std::byte>> packed;
  for (int64_t c = 0; c < copies_for(s.in * s.out * bytes); ++c) {
    packed.push_back(tiles::pack(dtype, source.data(), s.out, s.in));
  }
  const std::vector<uint8_t> a(static_cast<size_t>((s.rows + tiles::kSlackRows) * s.in * bytes), 1);
  std::vector<float> sums(static_cast<size_t>(s.rows * s.out));
  size_t next = 0;
  for (auto _ : state) {
    tiles::product(dtype, a.data(), s.rows, s.in, packed[next].data(), s.out, sums.data());
    next = (next + 1) % packed.size();
    benchmark::DoNotOptimize(sums.data());
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(flops(s) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

enum class F32Primitive { kMatmul, kInnerProduct, kConvolution };

// One oneDNN f32 primitive for y = x W^T + b over cycled weights (see the file comment).
void BM_OneDnnF32(benchmark::State& state, Shape s, F32Primitive kind) {
  using dnnl::memory;
  using tag = memory::format_tag;
  constexpr memory::data_type f32 = memory::data_type::f32;
  omp_set_num_threads(1);
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  std::vector<float> x = normal_values(s.rows * s.in, 7), bias = normal_values(s.out, 5);
  std::vector<float> y(static_cast<size_t>(s.rows * s.out));
  // torch's [out, in] matrix, and each primitive's view of it.
  const memory::desc torch_weights =
      kind == F32Primitive::kConvolution    ? memory::desc({s.out, s.in, 1}, f32, tag::abc)
      : kind == F32Primitive::kInnerProduct ? memory::desc({s.out, s.in}, f32, tag::ab)
                                            : memory::desc({s.in, s.out}, f32, tag::ba);
  dnnl::primitive primitive;
  memory::desc src, weights, bias_desc, dst;
  if (kind == F32Primitive::kMatmul) {
    src = memory::desc({s.rows, s.in}, f32, tag::ab);
    dst = memory::desc({s.rows, s.out}, f32, tag::ab);
    bias_desc = memory::desc({1, s.out}, f32, tag::ab);
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src, torch_weights, bias_desc, dst),
                                          engine);
    weights = pd.weights_desc();
    primitive = dnnl::matmul(pd);
    state.SetLabel(pd.impl_info_str());
  } else if (kind == F32Primitive::kInnerProduct) {
    src = memory::desc({s.rows, s.in}, f32, tag::ab);
    dst = memory::desc({s.rows, s.out}, f32, tag::ab);
    bias_desc = memory::desc({s.out}, f32, tag::a);
    const dnnl::inner_product_forward::primitive_desc pd(
        dnnl::inner_product_forward::desc(dnnl::prop_kind::forward_inference, src,
                                          memory::desc({s.out, s.in}, f32, tag::any), bias_desc,
                                          dst),
        engine);
    weights = pd.weights_desc();
    primitive = dnnl::inner_product_forward(pd);
    state.SetLabel(pd.impl_info_str());
  } else {
    src = memory::desc({1, s.in, s.rows}, f32, tag::acb);
    dst = memory::desc({1, s.out, s.rows}, f32, tag::acb);
    bias_desc = memory::desc({s.out}, f32, tag::a);
    const dnnl::convolution_forward::primitive_desc pd(
        dnnl::convolution_forward::desc(
            dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src,
            memory::desc({s.out, s.in, 1}, f32, tag::any), bias_desc, dst, {1}, {0}, {0}),
        engine);
    weights = pd.weights_desc();
    primitive = dnnl::convolution_forward(pd);
    state.SetLabel(pd.impl_info_str());
  }
  std::vector<std::vector<float>> plain = weight_copies(s, copies_for(4 * s.in * s.out));
  std::vector<memory> packed;
  for (auto& w : plain) {
    memory source(torch_weights, engine, w.data());
    packed.emplace_back(weights, engine);
    dnnl::reorder(source, packed.back()).execute(stream, source, packed.back());
  }
  stream.wait();
  memory src_memory(src, engine, x.data()), dst_memory(dst, engine, y.data());
  memory bias_memory(bias_desc, engine, bias.data());
  size_t next = 0;
  for (auto _ : state) {
    primitive.execute(stream, {{DNNL_ARG_SRC, src_memory},
                               {DNNL_ARG_WEIGHTS, packed[next]},
                               {DNNL_ARG_BIAS, bias_memory},
                               {DNNL_ARG_DST, dst_memory}});
    stream.wait();
    next = (next + 1) % packed.size();
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(flops(s) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

int main(int argc, char** argv) {
#if defined(__x86_64__)
  for (tinyenc::Isa isa : {tinyenc::Isa::kAvx2, tinyenc::Isa::kAvx512}) {
    if (!tinyenc::isa_supported(isa)) continue;
    benchmark::RegisterBenchmark(("BM_FmaPeak/" + std::string(tinyenc::isa_name(isa))).c_str(),
                                 BM_FmaPeak, isa)
        ->Unit(benchmark::kMillisecond);
  }
  if (tinyenc::cpuid_features().avx512_bf16) {
    benchmark::RegisterBenchmark("BM_Bf16DotPeak", BM_Bf16DotPeak)->Unit(benchmark::kMillisecond);
  }
  if (tinyenc::cpuid_features().avx512_vnni) {
    benchmark::RegisterBenchmark("BM_VnniPeak", BM_VnniPeak)->Unit(benchmark::kMillisecond);
  }
  if (tinyenc::cpuid_features().amx_int8) {
    benchmark::RegisterBenchmark("BM_AmxPeak/int8", BM_AmxPeak, false)
        ->Unit(benchmark::kMillisecond);
  }
  if (tinyenc::cpuid_features().amx_bf16) {
    benchmark::RegisterBenchmark("BM_AmxPeak/bf16", BM_AmxPeak, true)
        ->Unit(benchmark::kMillisecond);
  }
#endif
  for (int64_t bytes : {int64_t{85} << 20, int64_t{340} << 20}) {
    benchmark::RegisterBenchmark(("BM_ReadBandwidth/" + std::to_string(bytes)).c_str(),
                                 BM_ReadBandwidth, bytes)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  for (const Shape& shape : kShapes) {
    for (ComputeDtype dtype : {ComputeDtype::kF32, ComputeDtype::kInt8, ComputeDtype::kBF16}) {
      const std::string name =
          "BM_Linear/" + std::string(tinyenc::compute_dtype_name(dtype)) + "/" + shape_name(shape);
      benchmark::RegisterBenchmark(name.c_str(), BM_Linear, shape, dtype)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
    for (ComputeDtype dtype : {ComputeDtype::kInt8, ComputeDtype::kBF16}) {
      if (!tinyenc::ops::tiles::fits(dtype, shape.in, shape.out)) continue;
      const std::string name = "BM_TileProduct/" + std::string(tinyenc::compute_dtype_name(dtype)) +
                               "/" + shape_name(shape);
      benchmark::RegisterBenchmark(name.c_str(), BM_TileProduct, shape, dtype)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
    const std::pair<const char*, F32Primitive> primitives[] = {
        {"matmul", F32Primitive::kMatmul},
        {"inner_product", F32Primitive::kInnerProduct},
        {"convolution", F32Primitive::kConvolution}};
    for (const auto& [primitive_name, kind] : primitives) {
      const std::string name =
          "BM_OneDnnF32/" + std::string(primitive_name) + "/" + shape_name(shape);
      benchmark::RegisterBenchmark(name.c_str(), BM_OneDnnF32, shape, kind)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
