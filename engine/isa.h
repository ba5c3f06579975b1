// Instruction-set selection for tinyenc's own kernels (the PE stage).
//
// The best ISA the CPU and OS support is chosen at run time; the environment variable
// TINYENC_ISA=scalar|avx2|avx512|neon forces one (for tests and A/B benchmarks).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tinyenc {

enum class Isa { kScalar, kAvx2, kAvx512, kNeon };

std::string_view isa_name(Isa isa);

// Parses "scalar", "avx2", "avx512" or "neon"; nullopt for anything else.
std::optional<Isa> parse_isa(std::string_view name);

// Kernels compiled into this binary (depends on the target architecture).
std::vector<Isa> compiled_isas();

// What this CPU reports through cpuid, and whether the OS saves the vector registers it needs,
// read once per process: the one cpuid reader, which the dtype choice (engine/dtype.h) asks too.
// All false off x86-64.
struct CpuidFeatures {
  bool avx2 = false;         // with FMA, and the OS saving the YMM state
  bool avx512f = false;      // with AVX2, and the OS saving the opmask and ZMM state
  bool avx512_core = false;  // avx512f with BW, VL and DQ (oneDNN's avx512_core)
  bool avx512_vnni = false;  // int8 dot products (VNNI), AVX-512
  bool avx512_bf16 = false;  // native bf16 dot products
  bool avx_vnni = false;     // int8 dot products (VNNI), AVX2 encoding
  bool amx_bf16 = false;
  bool amx_int8 = false;
};
const CpuidFeatures& cpuid_features();

// The CPU's model name as /proc/cpuinfo gives it ("AMD EPYC 9R14"), tabs made spaces; "aarch64"
// or "unknown CPU" where it has none.
std::string cpu_model_name();

// True when the kernels for `isa` are compiled in and this CPU and OS can run them.
bool isa_supported(Isa isa);

// The fastest supported ISA, ignoring TINYENC_ISA.
Isa best_supported_isa();

// The ISA a TINYENC_ISA value selects: null or empty means best_supported_isa(). Throws
// std::invalid_argument for an unknown or unsupported name.
Isa isa_for_setting(const char* setting);

// The ISA the kernels use: isa_for_setting(getenv("TINYENC_ISA")).
// Throws std::invalid_argument when TINYENC_ISA names an unknown or unsupported ISA.
// Read once per process.
Isa active_isa();

// Whether the active ISA runs AVX2 code (avx2, or avx512 above it): what the engine's row kernels
// ask after active_isa() == kAvx512 for their AVX-512 version (ops/quantize, gelu, softmax_rows;
// the int8 dequantization has only the AVX2 one). Read once per process.
bool active_isa_runs_avx2();

}  // namespace tinyenc
