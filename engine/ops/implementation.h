// Which of oneDNN's implementations of a primitive runs. oneDNN lists the implementations it has
// for a description, best first, and a primitive descriptor starts at the first that accepts the
// shape; next_impl() moves down the list. Two kinds are never taken in a forward pass:
// - a reference implementation ("ref:any", "ref_int8:any"...): a loop written for clarity, tens
//   of times slower than a JIT kernel (oneDNN falls back to one when no kernel takes a shape, e.g.
//   an int8 1x1 convolution with 42 outputs and per-channel post-ops);
// - oneDNN 2.6's AMX int8 1x1 convolution ("jit_1x1:avx512_core_amx_int8"): at some widths (27,
//   33, 36, 39, 42, 45, 48 rows) it loads tiles past the end of its source and residual and
//   stores past the end of its destination, buffers that are exactly the size its memory
//   descriptors give.
// ONEDNN_VERBOSE=1 lists what ran (tests/tools/cli_implementations_test.cc reads it).
#pragma once

#include <string>
#include <string_view>

namespace tinyenc::ops {

// Whether a forward pass may run oneDNN's implementation `name` (impl_info_str()).
bool acceptable_implementation(std::string_view name);

// Moves `pd` to the first acceptable implementation from the one it is at.
// Returns false (with `pd` past its last) when there is none.
template <class PrimitiveDesc>
bool choose_implementation(PrimitiveDesc& pd) {
  for (;;) {
    const std::string name = pd.impl_info_str();
    if (acceptable_implementation(name)) return true;
    if (!pd.next_impl()) return false;
  }
}

[[noreturn]] void no_implementation(std::string_view what, const std::string& first);

// choose_implementation, or an error naming what has no acceptable implementation on this CPU
// (`what`, e.g. "a layer normalization of 7 x 256").
template <class PrimitiveDesc>
void require_implementation(PrimitiveDesc& pd, std::string_view what) {
  const std::string first = pd.impl_info_str();
  if (!choose_implementation(pd)) no_implementation(what, first);
}

}  // namespace tinyenc::ops
