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

}  // namespace tinyenc
