#include "tools/tinyenc/options.h"

#include <sched.h>
#include <unistd.h>

#include <charconv>
#include <cmath>
#include <cstdio>

#include <stdexcept>

#include "engine/encoder_config.h"
#include "tools/tinyenc/command.h"

namespace tinyenc::cli {
namespace {

// Shortest spelling that reads back as `value`: "0.5", "inf", "nan", "1e+300".
std::string spell(double value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

}  // namespace

int available_cpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  return online > 0 ? static_cast<int>(online) : 1;
}

int max_threads() { return 4 * available_cpus(); }

int checked_threads(int64_t threads, const std::string& option) {
  if (threads < 0 || threads > max_threads()) {
    throw UsageError(option + " " + std::to_string(threads) + ": expected 0 (all " +
                     std::to_string(available_cpus()) + " CPUs) to " +
                     std::to_string(max_threads()) + " (4 threads per CPU)");
  }
  return threads == 0 ? available_cpus() : static_cast<int>(threads);
}

void check_range(const std::string& option, int64_t value, int64_t lowest, int64_t highest) {
  if (value < lowest || value > highest) {
    throw UsageError(option + " " + std::to_string(value) + ": expected " + std::to_string(lowest) +
                     " to " + std::to_string(highest));
  }
}

void check_range(const std::string& option, double value, double lowest, double highest) {
  if (!std::isfinite(value) || value < lowest || value > highest) {
    throw UsageError(option + " " + spell(value) + ": expected a number from " + spell(lowest) +
                     " to " + spell(highest));
  }
}

}  // namespace tinyenc::cli
