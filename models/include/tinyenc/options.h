// What tinyenc::Options accepts, for programs that check their users' input before loading
// anything.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tinyenc {

// What Options::pooling takes besides "" (config.json's): "cls", "mean", "pooler", "none".
std::vector<std::string> pooling_names();

// The compute dtypes, fastest last: "f32", "bf16", "int8".
std::vector<std::string> dtype_names();

// Throws Error kBadInput unless `dtype` is one Options::dtype takes and this CPU runs: "" (the
// folder's own), "auto" or one of dtype_names(). The message names the value ("dtype 'x':
// expected f32, bf16, int8 or auto") or the missing CPU feature.
void check_dtype(const std::string& dtype);

// Empty when this CPU runs `dtype` (one of dtype_names()) natively; otherwise one sentence
// naming the missing feature, e.g. "bf16 needs AVX-512 (oneDNN's avx512_core); this CPU has avx2".
std::string dtype_unsupported_reason(const std::string& dtype);

// What Options::dtype "auto" picks on this CPU (the fastest dtype that meets tinyenc's accuracy
// gates), and one line saying why.
struct AutoDtype {
  std::string dtype;
  std::string reason;
};
AutoDtype auto_dtype();

// The threads Options::threads 0 gives: one per logical CPU this process may run on (its
// affinity mask, as sched_getaffinity gives it; hyper-threads count).
int default_threads();
// The most threads Options::threads accepts: 4 per logical CPU.
int most_threads();

// The largest Options::position_offset, 65536.
int64_t max_position_offset();

}  // namespace tinyenc
