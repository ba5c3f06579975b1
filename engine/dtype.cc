#include "engine/dtype.h"

#include <cassert>
#include <cstring>
#include <limits>
#include <oneapi/dnnl/dnnl.hpp>

#include "engine/bf16.h"
#include "engine/isa.h"
#include "engine/ops/quantize.h"

namespace tinyenc {

std::string_view compute_dtype_name(ComputeDtype dtype) { return dtype_traits(dtype).name; }

std::optional<ComputeDtype> parse_compute_dtype(std::string_view name) {
  for (ComputeDtype dtype : {ComputeDtype::kF32, ComputeDtype::kBF16, ComputeDtype::kInt8}) {
    if (name == compute_dtype_name(dtype)) return dtype;
  }
  return std::nullopt;
}

namespace {

// oneDNN's effective ISA (the hardware, the OS's saved state and ONEDNN_MAX_CPU_ISA together) is
// a bit mask that contains the masks of every ISA it allows.
bool onednn_allows(dnnl::cpu_isa isa) {
  const auto effective = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
  const auto wanted = static_cast<unsigned>(isa);
  return (effective & wanted) == wanted;
}

}  // namespace

CpuFeatures cpu_features() {
  using isa = dnnl::cpu_isa;
  // What the CPU reports (engine/isa.h), then what oneDNN allows of it.
  const CpuidFeatures& cpu = cpuid_features();
  CpuFeatures f;
  f.avx2 = cpu.avx2 && onednn_allows(isa::avx2);
  f.avx512f = cpu.avx512_core && onednn_allows(isa::avx512_core);
  f.avx512_vnni = cpu.avx512_vnni && onednn_allows(isa::avx512_core_vnni);
  f.avx512_bf16 = cpu.avx512_bf16 && onednn_allows(isa::avx512_core_bf16);
  f.avx_vnni = cpu.avx_vnni && (onednn_allows(isa::avx2_vnni) || f.avx512_vnni);
  f.amx_bf16 = cpu.amx_bf16 && onednn_allows(isa::avx512_core_amx);
  f.amx_int8 = cpu.amx_int8 && onednn_allows(isa::avx512_core_amx);
  return f;
}

std::string cpu_feature_list(const CpuFeatures& f) {
  std::string list;
  const auto add = [&](bool present, const char* name) {
    if (!present) return;
    if (!list.empty()) list += ' ';
    list += name;
  };
  add(f.avx2, "avx2");
  add(f.avx512f, "avx512f");
  add(f.avx512_bf16, "avx512_bf16");
  add(f.avx512_vnni, "avx512_vnni");
  add(f.avx_vnni, "avx_vnni");
  add(f.amx_bf16, "amx_bf16");
  add(f.amx_int8, "amx_int8");
  return list.empty() ? "none" : list;
}

std::string dtype_unsupported_reason(ComputeDtype dtype) {
  const DtypeTraits& traits = dtype_traits(dtype);
  const CpuFeatures f = cpu_features();
  if (traits.runs_on(f)) return "";
  return std::string(traits.name) + " needs " + std::string(traits.needs) + "; this CPU has " +
         cpu_feature_list(f);
}

AutoComputeDtype auto_compute_dtype() {
  const CpuFeatures f = cpu_features();
  if (f.amx_int8) return {ComputeDtype::kInt8, "AMX int8 tiles: int8 runs about twice bf16's rate"};
  if (f.avx512_vnni || f.avx_vnni) return {ComputeDtype::kInt8, "VNNI int8 dot products"};
  if (f.avx512_bf16) return {ComputeDtype::kBF16, "AVX512_BF16 dot products, no VNNI"};
  if (f.avx2) return {ComputeDtype::kInt8, "AVX2 int8 kernels: a quarter of f32's weight bytes"};
  return {ComputeDtype::kF32, "no AVX2: the int8 and bf16 kernels need it"};
}

// ---- the table ----------------------------------------------------------------------------------

namespace {

using data_type = dnnl::memory::data_type;

void f32_from_f32(const float* weight, int64_t out, int64_t in, void* stored, float*) {
  std::memcpy(stored, weight, static_cast<size_t>(out * in) * sizeof(float));
}
void f32_to_f32(const void* stored, const float*, int64_t out, int64_t in, float* weight) {
  std::memcpy(weight, stored, static_cast<size_t>(out * in) * sizeof(float));
}

void bf16_from_f32(const float* weight, int64_t out, int64_t in, void* stored, float*) {
  convert_to_bf16(weight, out * in, static_cast<uint16_t*>(stored));
}
void bf16_to_f32(const void* stored, const float*, int64_t out, int64_t in, float* weight) {
  const auto* bits = static_cast<const uint16_t*>(stored);
  for (int64_t i = 0; i < out * in; ++i) weight[i] = f32_from_bf16(bits[i]);
}

void int8_from_f32(const float* weight, int64_t out, int64_t in, void* stored, float* scales) {
  quantize_weights_s8(weight, out, in, static_cast<int8_t*>(stored), scales);
}
void int8_to_f32(const void* stored, const float* scales, int64_t out, int64_t in, float* weight) {
  const auto* levels = static_cast<const int8_t*>(stored);
  for (int64_t o = 0; o < out; ++o) {
    for (int64_t i = 0; i < in; ++i) {
      weight[o * in + i] = static_cast<float>(levels[o * in + i]) * scales[o];
    }
  }
}

// The fixed rule, for a process with no book of measured choices (engine/ops/linear_choice.h,
// which measures by default). Which primitive: f32 runs up to 256 rows (inputs up to a few hundred
// tokens) as a 1x1 convolution over [rows, in] as a width-`rows` image in nwc layout. Its weights
// are reordered once into oneDNN's blocked layout, where a GEMM re-packs the whole matrix on every
// call: a pass over weights that come from memory, which dominates when rows are few (2x at 8 rows
// on AVX2) and still shows at 128 and 256 rows (bench/ceiling_bench.cc, BM_OneDnnF32 on base's
// shapes with the weights cycled from memory; figures in bench/README.md, Ceilings). Many rows: a
// matmul reading torch's [out, in] matrix in place ("ba" as [in, out]), the order oneDNN's GEMM
// runs fastest with there; which of the two is faster from 512 rows depends on the shape and on
// whether the weights stay in the cache (the matmul was ahead at mini's 1024 x 1024 x 256 with
// cache-resident weights).
// int8: the 1x1 convolution at every row count: on AVX2 (jit_uni_int8_1x1 against gemm:jit,
// both with pre-packed weights) it ran 1.1x to 2x faster from 8 to 200 rows.
// bf16: a matmul with weights packed once into the layout it asks for (brgemm on avx512_core).
constexpr int64_t kEveryRow = std::numeric_limits<int64_t>::max();

const DtypeTraits kTraits[] = {
    {.dtype = ComputeDtype::kF32,
     .name = "f32",
     .file_dtype = "F32",
     .weight_bytes = 4,
     .channel_scales = false,
     .channel_bytes = 0,
     .from_f32 = f32_from_f32,
     .to_f32 = f32_to_f32,
     .weight_type = data_type::f32,
     .activation_type = data_type::f32,
     .accumulator_type = data_type::f32,
     .activations = ActivationForm::kF32,
     .max_convolution_rows = 256,
     .matmul_weights_in_place = true,
     .runs_on = [](const CpuFeatures&) { return true; },
     .needs = "nothing"},
    // oneDNN 2.6 runs bf16 matmuls from avx512_core up (emulated dot products below
    // avx512_bf16, still several times the f32 throughput's bytes); nothing below it.
    {.dtype = ComputeDtype::kBF16,
     .name = "bf16",
     .file_dtype = "BF16",
     .weight_bytes = 2,
     .channel_scales = false,
     .channel_bytes = 0,
     .from_f32 = bf16_from_f32,
     .to_f32 = bf16_to_f32,
     .weight_type = data_type::bf16,
     .activation_type = data_type::bf16,
     .accumulator_type = data_type::f32,
     .activations = ActivationForm::kBF16,
     .max_convolution_rows = 0,
     .matmul_weights_in_place = false,
     .runs_on = [](const CpuFeatures& f) { return f.avx512f; },
     .needs = "AVX-512 (oneDNN's avx512_core: avx512f, avx512bw, avx512vl, avx512dq)"},
    // s32 sums from oneDNN, dequantized by Matmul (engine/ops/matmul.h says why).
    {.dtype = ComputeDtype::kInt8,
     .name = "int8",
     .file_dtype = "I8",
     .weight_bytes = 1,
     .channel_scales = true,
     .channel_bytes = sizeof(float) + sizeof(int32_t),
     .from_f32 = int8_from_f32,
     .to_f32 = int8_to_f32,
     .weight_type = data_type::s8,
     .activation_type = data_type::u8,
     .accumulator_type = data_type::s32,
     .activations = ActivationForm::kU8PerRow,
     .max_convolution_rows = kEveryRow,
     .matmul_weights_in_place = false,
     .runs_on = [](const CpuFeatures& f) { return f.avx2; },
     .needs = "AVX2 at least"},
};

}  // namespace

const DtypeTraits& dtype_traits(ComputeDtype dtype) {
  const DtypeTraits& traits = kTraits[static_cast<int>(dtype)];
  assert(traits.dtype == dtype);
  return traits;
}

}  // namespace tinyenc
