#include "engine/ops/implementation.h"

#include <stdexcept>

namespace tinyenc::ops {

bool acceptable_implementation(std::string_view name) {
  if (name.starts_with("ref")) return false;
  if (name.starts_with("jit_1x1:") && name.find("amx") != std::string_view::npos) return false;
  return true;
}

void no_implementation(std::string_view what, const std::string& first) {
  throw std::runtime_error("oneDNN has no implementation of " + std::string(what) +
                           " on this CPU but its reference one (it offered " + first + ")");
}

}  // namespace tinyenc::ops
