#include "engine/ops/implementation.h"

#include <mutex>
#include <set>
#include <stdexcept>

namespace tinyenc::ops {
namespace {

struct Taken {
  std::mutex mutex;
  std::set<std::string> names;
};

Taken& taken() {
  static Taken instance;
  return instance;
}

}  // namespace

bool acceptable_implementation(std::string_view name) {
  if (name.starts_with("ref")) return false;
  if (name.starts_with("jit_1x1:") && name.find("amx") != std::string_view::npos) return false;
  return true;
}

void record_implementation(const std::string& name) {
  Taken& t = taken();
  const std::lock_guard lock(t.mutex);
  t.names.insert(name);
}

std::vector<std::string> implementations_taken() {
  Taken& t = taken();
  const std::lock_guard lock(t.mutex);
  return {t.names.begin(), t.names.end()};
}

void clear_implementations_taken() {
  Taken& t = taken();
  const std::lock_guard lock(t.mutex);
  t.names.clear();
}

void no_implementation(std::string_view what, const std::string& first) {
  throw std::runtime_error("oneDNN has no implementation of " + std::string(what) +
                           " on this CPU but its reference one (it offered " + first + ")");
}

}  // namespace tinyenc::ops
