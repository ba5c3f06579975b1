#include "output.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <mutex>
#include <stdexcept>
#include <string_view>
#include <system_error>

namespace tinyenc::cli {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kTemporaryMarker = ".tinyenc-tmp.";
// Keeps ".<name>.tinyenc-tmp.<pid>.<n>" within the 255 bytes a file name may have.
constexpr size_t kLongestNameInTemporary = 200;

std::string reason(int error) { return std::error_code(error, std::generic_category()).message(); }

// --- Removing temporaries when the process is told to stop ---------------------------------
// The handler may run on any thread (oneDNN's workers do not block signals) while the main
// thread opens or closes sinks, so the names it may unlink sit in fixed slots guarded by a
// lock-free state: only an armed slot is unlinked, and a slot the handler took is never reused.
enum SlotState : int { kFree, kFilling, kArmed, kTakenByHandler };
struct SignalSlot {
  std::atomic<int> state{kFree};
  char path[PATH_MAX];
};
SignalSlot signal_slots[16];  // sinks open at once: two at most today (bench's -o and --plot)
std::atomic<int> commits_in_progress{0};
std::atomic<int> deferred_signal{0};
constexpr int kTerminatingSignals[] = {SIGINT, SIGTERM, SIGHUP};

void remove_armed_temporaries() {
  for (SignalSlot& slot : signal_slots) {
    int armed = kArmed;
    if (slot.state.compare_exchange_strong(armed, kTakenByHandler)) ::unlink(slot.path);
  }
}

// Async-signal-safe: the default action again, so the exit status says "killed by signal".
void die_of(int signal_number) {
  remove_armed_temporaries();
  struct sigaction action {};
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  ::sigaction(signal_number, &action, nullptr);
  ::raise(signal_number);  // delivered when the handler returns, or at once outside one
}

extern "C" void on_terminating_signal(int signal_number) {
  const int saved_errno = errno;
  // During a commit the target is being replaced or rewritten: let it finish, then die
  // (~CommitInProgress looks). Stored before the check, so one side always sees the other.
  deferred_signal.store(signal_number);
  if (commits_in_progress.load() == 0) die_of(signal_number);
  errno = saved_errno;
}

void install_signal_handlers() {
  static std::once_flag installed;
  std::call_once(installed, [] {
    for (int signal_number : kTerminatingSignals) {
      struct sigaction current {};
      ::sigaction(signal_number, nullptr, &current);
      // An ignored signal stays ignored (nohup, a background job's SIGINT), and a handler
      // someone else installed stays theirs.
      if (current.sa_handler != SIG_DFL || (current.sa_flags & SA_SIGINFO)) continue;
      struct sigaction action {};
      action.sa_handler = on_terminating_signal;
      sigemptyset(&action.sa_mask);
      for (int other : kTerminatingSignals) sigaddset(&action.sa_mask, other);
      action.sa_flags = SA_RESTART;
      ::sigaction(signal_number, &action, nullptr);
    }
  });
}

int arm(const fs::path& temporary) {
  const std::string& name = temporary.native();
  if (name.size() >= PATH_MAX) return -1;
  for (int i = 0; i < static_cast<int>(std::size(signal_slots)); ++i) {
    int free = kFree;
    if (!signal_slots[i].state.compare_exchange_strong(free, kFilling)) continue;
    std::memcpy(signal_slots[i].path, name.c_str(), name.size() + 1);
    signal_slots[i].state.store(kArmed);
    return i;
  }
  return -1;  // more sinks than slots: this one is only removed by the destructor
}

void disarm(int slot) {
  if (slot < 0) return;
  // Fails only if the handler took the slot: the process is dying, the slot stays taken.
  int armed = kArmed;
  signal_slots[slot].state.compare_exchange_strong(armed, kFree);
}

// Holds SIGINT/SIGTERM/SIGHUP off while a commit replaces or rewrites the target.
struct CommitInProgress {
  CommitInProgress() { commits_in_progress.fetch_add(1); }
  ~CommitInProgress() {
    if (commits_in_progress.fetch_sub(1) == 1) {
      if (const int signal_number = deferred_signal.exchange(0)) die_of(signal_number);
    }
  }
};

// --- Finding what a path names ---------------------------------------------------------------

// The file a chain of symbolic links ends at (it may not exist yet: `-o link` with a dangling
// link creates the file the link names, as the shell does).
fs::path follow_links(const std::string& path) {
  fs::path current = path;
  for (int hop = 0; hop < 40; ++hop) {
    struct stat status;
    if (::lstat(current.c_str(), &status) != 0 || !S_ISLNK(status.st_mode)) return current;
    std::error_code error;
    const fs::path next = fs::read_symlink(current, error);
    if (error)
      throw std::invalid_argument(path + ": cannot read the link (" + error.message() + ")");
    current = next.is_absolute() ? next : current.parent_path() / next;
  }
  throw std::invalid_argument(path + ": " + reason(ELOOP));
}

// ".<name>.tinyenc-tmp.", hidden beside the target and recognisable as ours. (Built by
// appending: GCC 12 warns falsely about "." + string, GCC bug 105329.)
std::string temporary_prefix(const std::string& name) {
  std::string prefix = ".";
  prefix.append(name, 0, kLongestNameInTemporary);
  prefix += kTemporaryMarker;
  return prefix;
}

bool same_file(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// Our temporaries for `name` left by processes that no longer exist (a SIGKILL, a power cut).
// Only ".<name>.tinyenc-tmp.<pid>[.<n>]" regular files whose pid is gone are touched: a live
// pid may be another tinyenc writing the same file right now.
void remove_dead_leftovers(const fs::path& folder, const std::string& name) {
  DIR* directory = ::opendir(folder.c_str());
  if (!directory) return;
  const std::string prefix = temporary_prefix(name);
  while (const dirent* entry = ::readdir(directory)) {
    const std::string_view entry_name = entry->d_name;
    if (!entry_name.starts_with(prefix)) continue;
    const char* const begin = entry_name.data() + prefix.size();
    const char* const end = entry_name.data() + entry_name.size();
    pid_t pid = 0;
    auto parsed = std::from_chars(begin, end, pid);
    if (parsed.ec != std::errc() || parsed.ptr == begin || pid <= 0 || pid == ::getpid()) continue;
    if (parsed.ptr != end) {  // the ".<n>" of a second sink on the same target
      unsigned serial = 0;
      if (*parsed.ptr != '.') continue;
      const char* const serial_begin = parsed.ptr + 1;
      parsed = std::from_chars(serial_begin, end, serial);
      if (parsed.ec != std::errc() || parsed.ptr != end || parsed.ptr == serial_begin) continue;
    }
    if (::kill(pid, 0) == 0 || errno != ESRCH) continue;
    struct stat status;
    if (::fstatat(::dirfd(directory), entry->d_name, &status, AT_SYMLINK_NOFOLLOW) != 0 ||
        !S_ISREG(status.st_mode)) {
      continue;
    }
    ::unlinkat(::dirfd(directory), entry->d_name, 0);
  }
  ::closedir(directory);
}

// A Unix socket is not opened but connected to, as a stream.
int connect_to_socket(const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof address.sun_path) {
    errno = ENAMETOOLONG;
    return -1;
  }
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  const int descriptor = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (descriptor < 0) return -1;
  if (::connect(descriptor, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    const int error = errno;
    ::close(descriptor);
    errno = error;
    return -1;
  }
  return descriptor;
}

std::FILE* stream_for(int descriptor, const std::string& path) {
  std::FILE* file = ::fdopen(descriptor, "wb");
  if (!file) {
    const int error = errno;
    ::close(descriptor);
    throw std::runtime_error(path + ": cannot write (" + reason(error) + ")");
  }
  return file;
}

bool write_all(int descriptor, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t written = ::write(descriptor, data, size);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return false;
    data += written;
    size -= static_cast<size_t>(written);
  }
  return true;
}

// The temporary's bytes into the existing file, which keeps its inode and so its links.
bool copy_into(int from, int to) {
  if (::lseek(from, 0, SEEK_SET) != 0 || ::ftruncate(to, 0) != 0 || ::lseek(to, 0, SEEK_SET) != 0)
    return false;
  std::vector<char> buffer(1 << 20);
  for (;;) {
    const ssize_t got = ::read(from, buffer.data(), buffer.size());
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return false;
    if (got == 0) return ::fsync(to) == 0;
    if (!write_all(to, buffer.data(), static_cast<size_t>(got))) return false;
  }
}

}  // namespace

OutputSink::OutputSink(const std::string& path) : file_(stdout), path_(path) {
  if (path.empty() || path == "-") return;
  struct stat status;
  if (::stat(path.c_str(), &status) != 0) {
    if (errno != ENOENT)
      throw std::invalid_argument(path + ": cannot write here (" + reason(errno) + ")");
    kind_ = Kind::kReplace;  // a new file, beside what the links (if any) name
    target_ = follow_links(path);
    open_temporary(target_, nullptr);
    return;
  }
  if (S_ISDIR(status.st_mode)) throw std::invalid_argument(path + ": is a directory");

  if (!S_ISREG(status.st_mode)) {
    kind_ = Kind::kDirect;
    int descriptor = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (descriptor < 0 && errno == ENXIO && S_ISSOCK(status.st_mode))
      descriptor = connect_to_socket(path);
    if (descriptor < 0)
      throw std::invalid_argument(path + ": cannot write here (" + reason(errno) + ")");
    file_ = stream_for(descriptor, path);
    return;
  }

  // rename() needs only the folder to be writable, and root passes every check: ask as the
  // shell's `>` would have opened the file itself.
  if (::faccessat(AT_FDCWD, path.c_str(), W_OK, AT_EACCESS) != 0)
    throw std::invalid_argument(path + ": not writable (" + reason(errno) + ")");
  const fs::path resolved = follow_links(path);
  struct stat resolved_status;
  // The links may not lead to the file itself: /proc/self/fd/N of a deleted file reads as
  // "/path (deleted)". Then, as for hard links, only rewriting the file in place is safe.
  const bool found =
      ::stat(resolved.c_str(), &resolved_status) == 0 && same_file(status, resolved_status);
  if (status.st_nlink == 1 && found) {
    kind_ = Kind::kReplace;
    target_ = resolved;
    open_temporary(target_, &status);
    return;
  }
  kind_ = Kind::kCopyInto;
  // Opened now, without truncating, so that a refusal comes before the work, not after it.
  existing_ = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (existing_ < 0) throw std::invalid_argument(path + ": not writable (" + reason(errno) + ")");
  try {
    open_temporary(found ? resolved : fs::temp_directory_path() / "output", nullptr);
  } catch (...) {
    ::close(existing_);  // no destructor runs for a constructor that throws
    throw;
  }
}

void OutputSink::open_temporary(const fs::path& beside, const struct ::stat* keep) {
  const fs::path folder = beside.parent_path().empty() ? fs::path(".") : beside.parent_path();
  const std::string name = beside.filename().string();
  remove_dead_leftovers(folder, name);
  const std::string stem = temporary_prefix(name) + std::to_string(::getpid());
  // Private until it holds the old file's mode; a new file's mode comes from the umask.
  const mode_t mode = keep ? 0600 : 0666;
  install_signal_handlers();
  int descriptor = -1;
  // A second sink on the same target in this process (bench -o X --plot X), or a dead
  // process's leftover whose pid we now have, takes the name first: add a serial number.
  for (int serial = 0; descriptor < 0; ++serial) {
    temporary_ = folder / (serial == 0 ? stem : stem + "." + std::to_string(serial));
    // Armed before the file exists, so that no signal can come between and leave it behind.
    signal_slot_ = arm(temporary_);
    descriptor =
        ::open(temporary_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (descriptor >= 0) break;
    const int error = errno;
    disarm(signal_slot_);
    signal_slot_ = -1;
    if (error != EEXIST || serial == 100) {
      temporary_.clear();
      throw std::invalid_argument(path_ + ": cannot create a temporary file in folder '" +
                                  folder.string() + "' (" + reason(error) + ")");
    }
  }
  if (keep) {
    // Replacing someone else's file as root keeps it theirs; for anyone else this fails for
    // other owners and the file becomes the writer's, as with any editor's save.
    if (keep->st_uid != ::geteuid() || keep->st_gid != ::getegid()) {
      [[maybe_unused]] const int ignored = ::fchown(descriptor, keep->st_uid, keep->st_gid);
    }
    // After chown, which clears set-user-ID bits.
    if (::fchmod(descriptor, keep->st_mode & 07777) != 0) {
      const int error = errno;
      ::close(descriptor);
      discard_temporary();
      throw std::runtime_error(path_ + ": cannot keep the file's mode (" + reason(error) + ")");
    }
  }
  try {
    file_ = stream_for(descriptor, path_);
  } catch (...) {
    discard_temporary();
    throw;
  }
}

void OutputSink::discard_temporary() {
  if (temporary_.empty()) return;
  ::unlink(temporary_.c_str());  // before disarming: a signal in between finds nothing to do
  disarm(signal_slot_);
  signal_slot_ = -1;
  temporary_.clear();
}

OutputSink::~OutputSink() {
  if (kind_ == Kind::kStandardOutput) return;
  if (file_) std::fclose(file_);
  if (existing_ >= 0) ::close(existing_);
  discard_temporary();
}

std::string OutputSink::where() const {
  return kind_ == Kind::kStandardOutput ? std::string("standard output") : path_;
}

void OutputSink::write(const std::string& text) {
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size() || std::ferror(file_)) {
    throw std::runtime_error(where() + ": " + reason(errno ? errno : EIO));
  }
}

// A failed fflush drops what it held, so the next one succeeds: each is checked.
void OutputSink::flush() {
  if (std::fflush(file_) != 0 || std::ferror(file_))
    throw std::runtime_error(where() + ": " + reason(errno ? errno : EIO));
}

void OutputSink::commit() {
  if (kind_ == Kind::kStandardOutput) {
    flush();
    return;
  }
  if (committed_) return;
  committed_ = true;
  errno = 0;
  bool written = std::fflush(file_) == 0 && !std::ferror(file_);
  int error = errno ? errno : EIO;
  if (kind_ == Kind::kDirect) {
    if (std::fclose(file_) != 0 && written) {
      written = false;
      error = errno;  // a device may report its error only now
    }
    file_ = nullptr;
    if (!written) throw std::runtime_error(path_ + ": write failed (" + reason(error) + ")");
    return;
  }

  CommitInProgress hold_signals;
  if (kind_ == Kind::kReplace) {
    if (written && ::fsync(::fileno(file_)) != 0) {
      written = false;
      error = errno;
    }
    if (std::fclose(file_) != 0 && written) {
      written = false;
      error = errno;
    }
    file_ = nullptr;
    if (written && ::rename(temporary_.c_str(), target_.c_str()) != 0) {
      error = errno;
      written = false;
    }
    if (written) {
      disarm(signal_slot_);  // renamed: nothing left to remove
      signal_slot_ = -1;
      temporary_.clear();
    }
  } else {
    if (written && !copy_into(::fileno(file_), existing_)) {
      written = false;
      error = errno;
    }
    if (::close(existing_) != 0 && written) {
      written = false;
      error = errno;
    }
    existing_ = -1;
    std::fclose(file_);
    file_ = nullptr;
  }
  discard_temporary();
  if (!written) {
    throw std::runtime_error(path_ + ": could not write the output file (" + reason(error) + ")");
  }
}

double json_float(float value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer - 1, value);
  *result.ptr = '\0';
  return std::strtod(buffer, nullptr);
}

std::vector<double> json_floats(const std::vector<float>& values) {
  std::vector<double> out;
  out.reserve(values.size());
  for (float value : values) out.push_back(json_float(value));
  return out;
}

}  // namespace tinyenc::cli
