#include "models/dtype_choice.h"

#include <stdexcept>

namespace tinyenc {

DtypeChoice choose_dtype(std::string_view requested, std::optional<ComputeDtype> stored) {
  if (requested.empty()) {
    if (!stored || *stored == ComputeDtype::kF32) {
      return {ComputeDtype::kF32, "default: float checkpoint"};
    }
    const std::string name(compute_dtype_name(*stored));
    const std::string missing = dtype_unsupported_reason(*stored);
    if (missing.empty()) return {*stored, "default: the folder is converted to " + name};
    return {ComputeDtype::kF32, "default: the folder is converted to " + name + ", but " + missing +
                                    "; widened to f32"};
  }
  if (requested == "auto") {
    AutoComputeDtype chosen = auto_compute_dtype();
    return {chosen.dtype, "auto: " + chosen.reason};
  }
  const std::optional<ComputeDtype> dtype = parse_compute_dtype(requested);
  if (!dtype) {
    throw std::invalid_argument("dtype '" + std::string(requested) +
                                "': expected f32, bf16, int8 or auto");
  }
  const std::string missing = dtype_unsupported_reason(*dtype);
  if (!missing.empty())
    throw std::invalid_argument("dtype " + std::string(requested) + ": " + missing);
  return {*dtype, "asked"};
}

}  // namespace tinyenc
