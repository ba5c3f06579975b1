// Checks shared by the subcommands' numeric options. CLI11 parses the numbers; what a number may
// be is decided here, once, so that `run`, `order` and `bench` refuse the same values the same
// way (exit 2, one line naming the option) before any work starts.
#pragma once

#include <cstdint>
#include <string>

#include "models/forward_memory.h"  // check_forward_memory, shared with the library

namespace tinyenc {
struct EncoderConfig;
}

namespace tinyenc::cli {

// The CPUs this process may run on (its affinity mask), at least 1.
int available_cpus();

// The most threads --threads accepts: 4 x available_cpus(). Past the CPUs, more threads only
// time-slice the same cores (useful to measure oversubscription, so a little is allowed); far
// past them the OpenMP runtime fails to create its pool, or crashes, as 65536 did.
int max_threads();

// `threads` if 1 <= threads <= max_threads(), available_cpus() for 0; otherwise throws
// UsageError naming `option`.
int checked_threads(int64_t threads, const std::string& option = "--threads");

// Throws UsageError naming `option` unless lowest <= value <= highest (integers).
void check_range(const std::string& option, int64_t value, int64_t lowest, int64_t highest);
// The same for real numbers, which must also be finite (NaN and Inf compare false to every
// bound, so a plain range check lets them through).
void check_range(const std::string& option, double value, double lowest, double highest);

}  // namespace tinyenc::cli
