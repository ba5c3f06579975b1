#include "tools/tinyenc/output.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <iterator>
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
  const std::string stem = temporary_prefix(name) + std::to_string(::getpid());
  // Private until it holds the old file's mode; a new file's mode comes from the umask.
  const mode_t mode = keep ? 0600 : 0666;
  int descriptor = -1;
  // A second sink on the same target in this process (bench -o X --plot X), or a leftover
  // whose pid we now have, takes the name first: add a serial number.
  for (int serial = 0; descriptor < 0; ++serial) {
    temporary_ = folder / (serial == 0 ? stem : stem + "." + std::to_string(serial));
    descriptor =
        ::open(temporary_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (descriptor >= 0) break;
    const int error = errno;
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
  ::unlink(temporary_.c_str());
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
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size()) {
    throw std::runtime_error(where() + ": write failed (" + reason(errno) + ")");
  }
}

void OutputSink::flush() { std::fflush(file_); }

void OutputSink::commit() {
  if (kind_ == Kind::kStandardOutput) {
    std::fflush(stdout);
    return;
  }
  if (committed_) return;
  committed_ = true;
  bool written = std::fflush(file_) == 0;
  int error = errno;
  if (kind_ == Kind::kDirect) {
    written = std::fclose(file_) == 0 && written;
    file_ = nullptr;
    if (!written) throw std::runtime_error(path_ + ": write failed (" + reason(error) + ")");
    return;
  }

  if (kind_ == Kind::kReplace) {
    written = written && ::fsync(::fileno(file_)) == 0;
    if (!written) error = errno;
    written = std::fclose(file_) == 0 && written;
    file_ = nullptr;
    if (written && ::rename(temporary_.c_str(), target_.c_str()) != 0) {
      error = errno;
      written = false;
    }
    if (written) {
      temporary_.clear();  // renamed: nothing left to remove
    }
  } else {
    written = written && copy_into(::fileno(file_), existing_);
    if (!written) error = errno;
    written = ::close(existing_) == 0 && written;
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
