#include "engine/io/regular_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <stdexcept>
#include <system_error>

namespace tinyenc {
namespace {

[[noreturn]] void fail_system(const std::filesystem::path& path, const char* what, int error) {
  throw std::system_error(error, std::generic_category(), path.string() + ": " + what);
}

void check_regular(const std::filesystem::path& path, const struct stat& status) {
  if (S_ISDIR(status.st_mode)) {
    throw std::runtime_error(path.string() + ": is a folder, not a file");
  }
  if (!S_ISREG(status.st_mode)) {
    throw std::runtime_error(path.string() + ": not a regular file");
  }
}

}  // namespace

RegularFile::RegularFile(const std::filesystem::path& path) {
  // Look before opening: opening a device can do something by itself (a tape rewinds, a terminal
  // may become the controlling one).
  struct stat status;
  if (::stat(path.c_str(), &status) != 0) fail_system(path, "cannot open", errno);
  check_regular(path, status);
  // The path may name something else by the time it is opened. O_NONBLOCK keeps the open of a
  // FIFO from waiting for a writer, and fstat then judges what was actually opened. (On a regular
  // file the flag changes nothing: reads of regular files never block.)
  const int descriptor = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (descriptor < 0) fail_system(path, "cannot open", errno);
  try {
    if (::fstat(descriptor, &status) != 0) fail_system(path, "cannot stat", errno);
    check_regular(path, status);
  } catch (...) {
    ::close(descriptor);
    throw;
  }
  descriptor_ = descriptor;
  size_ = static_cast<uint64_t>(status.st_size);
}

RegularFile::~RegularFile() { ::close(descriptor_); }

std::string read_regular_file(const std::filesystem::path& path, uint64_t max_bytes) {
  const RegularFile file(path);
  const auto too_large = [&] {
    throw std::runtime_error(path.string() + ": larger than " + std::to_string(max_bytes) +
                             " bytes, the limit for this file");
  };
  if (file.size() > max_bytes) too_large();
  // Read to the end rather than trust the size: the file may grow meanwhile, and some (in /proc)
  // report 0 bytes. One byte of room beyond the limit tells a file that reaches it from one that
  // goes past it.
  std::string bytes(static_cast<size_t>(file.size()), '\0');
  size_t filled = 0;
  for (;;) {
    if (filled == bytes.size()) {
      if (filled > max_bytes) too_large();
      const uint64_t grown = std::max<uint64_t>(2 * bytes.size(), 4096);
      bytes.resize(static_cast<size_t>(std::min(grown, max_bytes + 1)));
    }
    const ssize_t count = ::read(file.descriptor(), bytes.data() + filled, bytes.size() - filled);
    if (count < 0) {
      if (errno == EINTR) continue;
      fail_system(path, "cannot read", errno);
    }
    if (count == 0) break;
    filled += static_cast<size_t>(count);
  }
  if (filled > max_bytes) too_large();
  bytes.resize(filled);
  return bytes;
}

std::filesystem::file_type file_type_of(const std::filesystem::path& path) {
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(path, error);
  // status() reports a missing path (or a dangling link) as not_found with the error set too.
  if (status.type() == std::filesystem::file_type::not_found) return status.type();
  if (error) throw std::runtime_error(path.string() + ": " + error.message());
  return status.type();
}

}  // namespace tinyenc
