// The per-ISA kernel entry points. Each ISA's kernels live in their own translation unit
// (kernels_<isa>.cc) compiled with that ISA's flags only; dispatch.cc picks one at run time.
// The functions take a range so the caller can split work across OpenMP threads.
#pragma once

#include <cstdint>

#include "engine/pe/kernels.h"

namespace tinyenc::detail {

struct PeKernelTable {
  // Tokens [begin, end); stream_output from stream_embedding_output.
  void (*embed)(const EmbeddingArgs& args, int64_t begin, int64_t end, bool stream_output);
  // Tokens [begin, end).
  void (*rotate)(const RopeArgs& args, int64_t begin, int64_t end);
  // Score rows [begin, end) of the flattened [batch * heads * queries] rows.
  void (*add_distance_bias)(const DistanceBiasArgs& args, int64_t begin, int64_t end);
};

// Whether embed should write args.out with non-temporal stores: true for outputs too large to
// stay in the last-level cache (dispatch.cc).
bool stream_embedding_output(const EmbeddingArgs& args);

extern const PeKernelTable kScalarPeKernels;
#if defined(__x86_64__)
extern const PeKernelTable kAvx2PeKernels;
extern const PeKernelTable kAvx512PeKernels;
#endif
#if defined(__aarch64__)
extern const PeKernelTable kNeonPeKernels;
#endif

}  // namespace tinyenc::detail
