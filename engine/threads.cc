#include "engine/threads.h"

#include <sched.h>
#include <unistd.h>

namespace tinyenc {

int available_cpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  return online > 0 ? static_cast<int>(online) : 1;
}

int thread_limit() { return 4 * available_cpus(); }

int resolve_threads(int requested) { return requested > 0 ? requested : available_cpus(); }

}  // namespace tinyenc
