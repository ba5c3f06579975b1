#include "engine/isa.h"

#include <cstdlib>
#include <fstream>
#include <stdexcept>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace tinyenc {

std::string_view isa_name(Isa isa) {
  switch (isa) {
    case Isa::kScalar:
      return "scalar";
    case Isa::kAvx2:
      return "avx2";
    case Isa::kAvx512:
      return "avx512";
    case Isa::kNeon:
      return "neon";
  }
  return "unknown";
}

std::optional<Isa> parse_isa(std::string_view name) {
  for (Isa isa : {Isa::kScalar, Isa::kAvx2, Isa::kAvx512, Isa::kNeon}) {
    if (name == isa_name(isa)) return isa;
  }
  return std::nullopt;
}

std::vector<Isa> compiled_isas() {
#if defined(__x86_64__)
  return {Isa::kScalar, Isa::kAvx2, Isa::kAvx512};
#elif defined(__aarch64__)
  return {Isa::kScalar, Isa::kNeon};
#else
  return {Isa::kScalar};
#endif
}

namespace {

// The CPU must report the instructions (cpuid) and the OS must save the vector registers on
// context switch (XCR0 via xgetbv): YMM state for AVX2, plus opmask and ZMM state for AVX-512.
// AMX's tile state is oneDNN's to check (engine/dtype.cc asks oneDNN's effective ISA as well).
CpuidFeatures read_cpuid_features() {
  CpuidFeatures features;
#if defined(__x86_64__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return features;
  const bool osxsave = (ecx & bit_OSXSAVE) != 0;
  const bool fma = (ecx & bit_FMA) != 0;
  const bool avx = (ecx & bit_AVX) != 0;
  if (!osxsave || !avx) return features;
  unsigned xcr0_low = 0, xcr0_high = 0;
  __asm__("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
  const bool os_saves_ymm = (xcr0_low & 0x6) == 0x6;    // SSE + AVX state
  const bool os_saves_zmm = (xcr0_low & 0xe6) == 0xe6;  // + opmask, ZMM_Hi256, Hi16_ZMM
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return features;
  const bool avx2 = (ebx & bit_AVX2) != 0;
  const bool avx512f = (ebx & bit_AVX512F) != 0;
  features.avx2 = avx2 && fma && os_saves_ymm;
  features.avx512f = features.avx2 && avx512f && os_saves_zmm;
  features.avx512_core =
      features.avx512f && (ebx & bit_AVX512DQ) && (ebx & bit_AVX512BW) && (ebx & bit_AVX512VL);
  features.avx512_vnni = features.avx512_core && (ecx & bit_AVX512VNNI);
  features.amx_bf16 = (edx >> 22) & 1;
  features.amx_int8 = (edx >> 25) & 1;
  __cpuid_count(7, 1, eax, ebx, ecx, edx);
  features.avx_vnni = features.avx2 && ((eax >> 4) & 1);
  features.avx512_bf16 = features.avx512_core && ((eax >> 5) & 1);
#endif
  return features;
}

}  // namespace

// cpuid is slow (and traps to the hypervisor in a VM): read it once.
std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) {
      std::string name = line.substr(line.find(':') + 1);
      name.erase(0, name.find_first_not_of(' '));
      for (char& c : name) {
        if (c == '\t') c = ' ';
      }
      if (!name.empty()) return name;
    }
  }
#if defined(__aarch64__)
  return "aarch64";
#else
  return "unknown CPU";
#endif
}

const CpuidFeatures& cpuid_features() {
  static const CpuidFeatures features = read_cpuid_features();
  return features;
}

bool isa_supported(Isa isa) {
  switch (isa) {
    case Isa::kScalar:
      return true;
#if defined(__x86_64__)
    case Isa::kAvx2:
      return cpuid_features().avx2;
    case Isa::kAvx512:
      return cpuid_features().avx512f;
    case Isa::kNeon:
      return false;
#elif defined(__aarch64__)
    case Isa::kNeon:
      return true;  // Advanced SIMD is mandatory on AArch64.
    default:
      return false;
#else
    default:
      return false;
#endif
  }
  return false;
}

Isa best_supported_isa() {
  for (Isa isa : {Isa::kAvx512, Isa::kAvx2, Isa::kNeon}) {
    if (isa_supported(isa)) return isa;
  }
  return Isa::kScalar;
}

Isa isa_for_setting(const char* forced) {
  if (forced == nullptr || *forced == '\0') return best_supported_isa();
  const std::optional<Isa> isa = parse_isa(forced);
  if (!isa) {
    throw std::invalid_argument(std::string("TINYENC_ISA: unknown ISA '") + forced +
                                "' (expected scalar, avx2, avx512 or neon)");
  }
  if (!isa_supported(*isa)) {
    throw std::invalid_argument(std::string("TINYENC_ISA: '") + forced +
                                "' is not supported by this CPU or build (best here: " +
                                std::string(isa_name(best_supported_isa())) + ")");
  }
  return *isa;
}

Isa active_isa() {
  static const Isa isa = isa_for_setting(std::getenv("TINYENC_ISA"));
  return isa;
}

bool active_isa_runs_avx2() {
  static const bool avx2 = active_isa() == Isa::kAvx2 || active_isa() == Isa::kAvx512;
  return avx2;
}

}  // namespace tinyenc
