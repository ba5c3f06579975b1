// Row-parallel passes of our own kernels: body(begin, end) over rows [0, rows), each OpenMP
// thread taking one contiguous share, when the pass has at least `min_work` units of work (the
// caller's measure: floats touched, usually); below that, or on one thread, the caller's thread
// does it all. Each row must be computed alone, so the result does not depend on the split.
#pragma once

#include <omp.h>

#include <cstdint>

namespace tinyenc {

template <class Body>
void parallel_rows(int64_t rows, int64_t work, int64_t min_work, Body&& body) {
  if (rows < 2 || work < min_work || omp_get_max_threads() == 1) {
    body(int64_t{0}, rows);
    return;
  }
#pragma omp parallel
  {
    const int64_t threads = omp_get_num_threads(), thread = omp_get_thread_num();
    body(rows * thread / threads, rows * (thread + 1) / threads);
  }
}

}  // namespace tinyenc
