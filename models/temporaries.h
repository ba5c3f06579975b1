// Temporary files and folders that must not outlive the process: an interrupted `convert` leaves
// no staging folder (of up to several GB) behind. Paths registered here are removed when the
// process is told to stop (SIGINT, SIGTERM, SIGHUP) and then it dies of the signal as it would
// have; a SIGKILL cannot be caught, so the next writer of the same target removes the leftover
// of a process that no longer exists (remove_dead_leftovers).
#pragma once

#include <filesystem>
#include <string>

namespace tinyenc {

// Registers `path` (a file, or a folder removed with everything in it) for removal on a
// terminating signal, until the returned slot is released. Returns -1 when the path cannot be
// registered (too long, too many at once): then only the owner's destructor removes it.
int register_temporary(const std::filesystem::path& path);
// The path was renamed into place or removed by its owner: the signal handler leaves it alone.
void release_temporary(int slot);

// In `folder`, removes the entries named "<prefix><pid>" (and "<prefix><pid>.<n>") whose pid
// names no living process: a killed writer's temporaries. A live pid's are left alone.
void remove_dead_leftovers(const std::filesystem::path& folder, const std::string& prefix);

}  // namespace tinyenc
