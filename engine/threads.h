// How many threads the forward pass runs on. "0 threads" means one thread per logical CPU this
// process may run on: the CPUs of its affinity mask (sched_getaffinity), hyper-threads included,
// so that a process pinned with taskset or a container's cpuset gets one thread per CPU it has.
#pragma once

namespace tinyenc {

// The logical CPUs (hardware threads) this process may run on, from its affinity mask; the
// online CPUs where the mask cannot be read; at least 1.
int available_cpus();

// The most threads a forward pass accepts: 4 x available_cpus(). Past the CPUs, more threads
// only time-slice the same cores (useful to measure oversubscription, so a little is allowed);
// far past them the OpenMP runtime fails to create its pool, or crashes, as 65536 did.
int thread_limit();

// `requested` when it is positive, available_cpus() for 0 (or less).
int resolve_threads(int requested);

}  // namespace tinyenc
