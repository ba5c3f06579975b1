#include "models/temporaries.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstring>
#include <iterator>
#include <mutex>
#include <string_view>
#include <system_error>
#include <vector>

namespace tinyenc {
namespace {

// The handler may run on any thread while the main thread registers or releases paths, so the
// paths sit in fixed slots with a lock-free state: only an armed slot is removed, and a slot the
// handler took is never reused.
enum SlotState : int { kFree, kFilling, kArmed, kTakenByHandler };
struct Slot {
  std::atomic<int> state{kFree};
  char path[PATH_MAX];
};
Slot slots[8];
constexpr int kTerminatingSignals[] = {SIGINT, SIGTERM, SIGHUP};
struct sigaction previous_actions[3];

// What getdents64 fills; declared here because glibc before 2.30 has no getdents64().
struct LinuxDirent64 {
  ino64_t d_ino;
  off64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[];
};

// Removes what `name` names in the folder `at`, a folder with everything in it. Only system
// calls: it runs inside a signal handler, where malloc (and so opendir) may not be called.
void remove_at(int at, const char* name, int depth) {
  if (::unlinkat(at, name, 0) == 0 || (errno != EISDIR && errno != EPERM) || depth > 32) return;
  const int folder = ::openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (folder < 0) return;
  alignas(LinuxDirent64) char buffer[4096];
  for (;;) {
    const long count = ::syscall(SYS_getdents64, folder, buffer, sizeof buffer);
    if (count <= 0) break;
    bool removed_any = false;
    for (long offset = 0; offset < count;) {
      const auto* entry = reinterpret_cast<const LinuxDirent64*>(buffer + offset);
      offset += entry->d_reclen;
      if (std::strcmp(entry->d_name, ".") == 0 || std::strcmp(entry->d_name, "..") == 0) continue;
      remove_at(folder, entry->d_name, depth + 1);
      removed_any = true;
    }
    if (!removed_any) break;
    ::lseek(folder, 0, SEEK_SET);  // entries were removed: read the folder again from the start
  }
  ::close(folder);
  ::unlinkat(at, name, AT_REMOVEDIR);
}

extern "C" void remove_temporaries_on_signal(int signal_number) {
  for (Slot& slot : slots) {
    int armed = kArmed;
    if (slot.state.compare_exchange_strong(armed, kTakenByHandler)) {
      remove_at(AT_FDCWD, slot.path, 0);
    }
  }
  // Then whatever was there before: another handler, or the default action, so that the exit
  // status says "killed by signal".
  for (int i = 0; i < 3; ++i) {
    if (kTerminatingSignals[i] != signal_number) continue;
    const struct sigaction& previous = previous_actions[i];
    if (!(previous.sa_flags & SA_SIGINFO) && previous.sa_handler != SIG_DFL &&
        previous.sa_handler != SIG_IGN) {
      previous.sa_handler(signal_number);
      return;
    }
  }
  struct sigaction action {};
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  ::sigaction(signal_number, &action, nullptr);
  ::raise(signal_number);
}

void install_handlers() {
  static std::once_flag installed;
  std::call_once(installed, [] {
    for (int i = 0; i < 3; ++i) {
      struct sigaction current {};
      ::sigaction(kTerminatingSignals[i], nullptr, &current);
      // An ignored signal stays ignored (nohup, a background job's SIGINT).
      if (current.sa_handler == SIG_IGN && !(current.sa_flags & SA_SIGINFO)) continue;
      previous_actions[i] = current;
      struct sigaction action {};
      action.sa_handler = remove_temporaries_on_signal;
      sigemptyset(&action.sa_mask);
      for (int other : kTerminatingSignals) sigaddset(&action.sa_mask, other);
      action.sa_flags = SA_RESTART;
      ::sigaction(kTerminatingSignals[i], &action, nullptr);
    }
  });
}

}  // namespace

int register_temporary(const std::filesystem::path& path) {
  install_handlers();
  // Absolute, so that a chdir between now and the signal removes the same path.
  std::error_code error;
  const std::string name = std::filesystem::absolute(path, error).native();
  if (error || name.size() >= PATH_MAX) return -1;
  for (int i = 0; i < static_cast<int>(std::size(slots)); ++i) {
    int free = kFree;
    if (!slots[i].state.compare_exchange_strong(free, kFilling)) continue;
    std::memcpy(slots[i].path, name.c_str(), name.size() + 1);
    slots[i].state.store(kArmed);
    return i;
  }
  return -1;
}

void release_temporary(int slot) {
  if (slot < 0) return;
  int armed = kArmed;
  slots[slot].state.compare_exchange_strong(armed, kFree);
}

void remove_dead_leftovers(const std::filesystem::path& folder, const std::string& prefix) {
  DIR* directory = ::opendir(folder.empty() ? "." : folder.c_str());
  if (!directory) return;
  std::vector<std::string> dead;
  while (const dirent* entry = ::readdir(directory)) {
    const std::string_view name = entry->d_name;
    if (!name.starts_with(prefix)) continue;
    const char* const begin = name.data() + prefix.size();
    const char* const end = name.data() + name.size();
    pid_t pid = 0;
    const auto parsed = std::from_chars(begin, end, pid);
    if (parsed.ec != std::errc() || parsed.ptr == begin || pid <= 0 || pid == ::getpid()) continue;
    if (parsed.ptr != end && *parsed.ptr != '.') continue;
    if (::kill(pid, 0) == 0 || errno != ESRCH) continue;
    dead.emplace_back(name);
  }
  for (const std::string& name : dead) remove_at(::dirfd(directory), name.c_str(), 0);
  ::closedir(directory);
}

}  // namespace tinyenc
