// The heads of an attention over views [batch, heads, t, dh] (view.h), one at a time: how the
// per-head kernels (short_attention.h, bf16_attention.h) are run over a whole batch.
#pragma once

#include <cstdint>

#include "engine/ops/view.h"
#include "engine/parallel_rows.h"

namespace tinyenc {

// The first row of head (b, h) in a view.
inline const float* head_rows(const View4& view, int64_t b, int64_t h) {
  return view.data + b * view.strides[0] + h * view.strides[1];
}
// The same, for a view written into (a context).
inline float* writable_head_rows(const View4& view, int64_t b, int64_t h) {
  return const_cast<float*>(head_rows(view, b, h));
}

// Below this many multiply-adds in all, the heads are not worth waking a second thread for.
inline constexpr int64_t kMinParallelHeadWork = 1 << 16;

// body(scratch, head, b, h) for head = b * heads + h of each of view's batch x heads heads,
// shared among the OpenMP threads as parallel_rows does when their `work_per_head` multiply-adds
// add up to kMinParallelHeadWork. scratch is start()'s, called once in each thread before its
// first head (per-thread buffers, say).
template <class Start, class Body>
void for_each_head(const View4& view, int64_t work_per_head, Start&& start, Body&& body) {
  const int64_t heads = view.dims[1], count = view.dims[0] * heads;
  parallel_rows(count, count * work_per_head, kMinParallelHeadWork,
                [&](int64_t begin, int64_t end) {
                  if (begin == end) return;
                  auto&& scratch = start();
                  for (int64_t head = begin; head < end; ++head) {
                    body(scratch, head, head / heads, head % heads);
                  }
                });
}

}  // namespace tinyenc
