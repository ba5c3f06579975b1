#include "models/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace tinyenc {
namespace {

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& what, int error) {
  throw std::runtime_error(path.string() + ": " + what + ": " + std::strerror(error));
}

// Closes the descriptor on every path out of the constructor; the mapping outlives it.
struct Descriptor {
  int fd;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

MappedFile::MappedFile(const std::filesystem::path& path) {
  const Descriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) fail(path, "cannot open", errno);
  struct stat status;
  if (::fstat(file.fd, &status) != 0) fail(path, "cannot stat", errno);
  if (!S_ISREG(status.st_mode)) {
    throw std::runtime_error(path.string() + ": not a regular file");
  }
  size_ = static_cast<size_t>(status.st_size);
  if (size_ == 0) return;
  void* mapping = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, file.fd, 0);
  if (mapping == MAP_FAILED) fail(path, "cannot map into memory", errno);
  data_ = static_cast<const std::byte*>(mapping);
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(const_cast<std::byte*>(data_), size_);
}

}  // namespace tinyenc
