#include "engine/dtype.h"

#include <oneapi/dnnl/dnnl.hpp>

#include "engine/isa.h"

namespace tinyenc {

std::string_view compute_dtype_name(ComputeDtype dtype) {
  switch (dtype) {
    case ComputeDtype::kF32:
      return "f32";
    case ComputeDtype::kBF16:
      return "bf16";
    case ComputeDtype::kInt8:
      return "int8";
  }
  return "unknown";
}

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
  const CpuFeatures f = cpu_features();
  switch (dtype) {
    case ComputeDtype::kF32:
      return "";
    case ComputeDtype::kBF16:
      // oneDNN 2.6 runs bf16 matmuls from avx512_core up (emulated dot products below
      // avx512_bf16, still several times the f32 throughput's bytes); nothing below it.
      if (f.avx512f) return "";
      return "bf16 needs AVX-512 (oneDNN's avx512_core: avx512f, avx512bw, avx512vl, avx512dq); "
             "this CPU has " +
             cpu_feature_list(f);
    case ComputeDtype::kInt8:
      if (f.avx2) return "";
      return "int8 needs AVX2 at least; this CPU has " + cpu_feature_list(f);
  }
  return "unknown dtype";
}

AutoComputeDtype auto_compute_dtype() {
  const CpuFeatures f = cpu_features();
  if (f.amx_int8) return {ComputeDtype::kInt8, "AMX int8 tiles: int8 runs about twice bf16's rate"};
  if (f.avx512_vnni || f.avx_vnni) return {ComputeDtype::kInt8, "VNNI int8 dot products"};
  if (f.avx512_bf16) return {ComputeDtype::kBF16, "AVX512_BF16 dot products, no VNNI"};
  if (f.avx2) return {ComputeDtype::kInt8, "AVX2 int8 kernels: a quarter of f32's weight bytes"};
  return {ComputeDtype::kF32, "no AVX2: the int8 and bf16 kernels need it"};
}

}  // namespace tinyenc
