#include "engine/io/mapped_file.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "engine/io/regular_file.h"

namespace tinyenc {
namespace {

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& what, int error) {
  throw std::runtime_error(path.string() + ": " + what + ": " + std::strerror(error));
}

}  // namespace

MappedFile::MappedFile(const std::filesystem::path& path) {
  // Only a regular file: mapping a FIFO or a device would block or fail in less clear ways. The
  // descriptor may be closed once the mapping exists.
  const RegularFile file(path);
  size_ = static_cast<size_t>(file.size());
  if (size_ == 0) return;
  void* mapping = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, file.descriptor(), 0);
  if (mapping == MAP_FAILED) fail(path, "cannot map into memory", errno);
  data_ = static_cast<const std::byte*>(mapping);
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(const_cast<std::byte*>(data_), size_);
}

}  // namespace tinyenc
