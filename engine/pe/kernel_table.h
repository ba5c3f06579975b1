// The per-ISA kernel entry points. Each ISA's kernels live in their own translation unit
// (kernels_<isa>.cc) compiled with that ISA's flags only; dispatch.cc picks one at run time.
// The functions take a range so the caller can split work across OpenMP threads.
#pragma once

#include <cstdint>

#include "engine/pe/kernels.h"

namespace tinyenc::detail {

struct PeKernelTable {
  // Tokens [begin, end).
  void (*embed)(const EmbeddingArgs& args, int64_t begin, int64_t end);
  // Tokens [begin, end).
  void (*rotate)(const RopeArgs& args, int64_t begin, int64_t end);
  // Score rows [begin, end) of the flattened [batch * heads * queries] rows.
  void (*add_distance_bias)(const DistanceBiasArgs& args, int64_t begin, int64_t end);
};

extern const PeKernelTable kScalarPeKernels;
#if defined(__x86_64__)
extern const PeKernelTable kAvx2PeKernels;
extern const PeKernelTable kAvx512PeKernels;
#endif
#if defined(__aarch64__)
extern const PeKernelTable kNeonPeKernels;
#endif

}  // namespace tinyenc::detail
