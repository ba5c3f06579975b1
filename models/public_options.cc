// <tinyenc/options.h>: the values Options accepts, checked as Model::load checks them
// (models/dtype_choice.h, engine/threads.h, engine/encoder.h).
#include <tinyenc/options.h>

#include <optional>

#include "engine/dtype.h"
#include "engine/encoder.h"
#include "engine/threads.h"
#include "models/dtype_choice.h"
#include "models/public_model_impl.h"

namespace tinyenc {

std::vector<std::string> pooling_names() {
  std::vector<std::string> names;
  for (Pooling pooling : {Pooling::kCls, Pooling::kMean, Pooling::kPooler, Pooling::kNone}) {
    names.emplace_back(pooling_name(pooling));
  }
  return names;
}

std::vector<std::string> dtype_names() {
  std::vector<std::string> names;
  for (ComputeDtype dtype : {ComputeDtype::kF32, ComputeDtype::kBF16, ComputeDtype::kInt8}) {
    names.emplace_back(compute_dtype_name(dtype));
  }
  return names;
}

void check_dtype(const std::string& dtype) {
  guarded([&] { choose_dtype(dtype, std::nullopt); });
}

std::string dtype_unsupported_reason(const std::string& dtype) {
  return guarded([&] {
    const std::optional<ComputeDtype> parsed = parse_compute_dtype(dtype);
    if (!parsed) throw bad_input("dtype '" + dtype + "': expected f32, bf16 or int8");
    return dtype_unsupported_reason(*parsed);
  });
}

AutoDtype auto_dtype() {
  const AutoComputeDtype chosen = auto_compute_dtype();
  return {std::string(compute_dtype_name(chosen.dtype)), chosen.reason};
}

int default_threads() { return available_cpus(); }

int most_threads() { return thread_limit(); }

int64_t max_position_offset() { return kMaxPositionOffset; }

}  // namespace tinyenc
