// A whole file mapped read-only into memory (POSIX mmap): model weights are used where they lie,
// and pages the program never touches are never read from disk.
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>

namespace tinyenc {

class MappedFile {
 public:
  // Throws std::runtime_error("<path>: <what>") when the file cannot be opened or mapped, or is
  // not a regular file (engine/io/regular_file.h).
  explicit MappedFile(const std::filesystem::path& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  // Empty for an empty file (which cannot be mapped, and needs not be).
  std::span<const std::byte> bytes() const { return {data_, size_}; }

 private:
  const std::byte* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace tinyenc
