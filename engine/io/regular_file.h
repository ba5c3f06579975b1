// Opening and reading the files a model folder holds, refusing anything that is not a regular
// file before a byte is read: a FIFO without a writer blocks open() and read() forever, a device
// such as /dev/zero never reaches its end, a folder cannot be read at all. The one reader of
// files: the tokenizer, models/ and tools/ all read through it.
//
// Errors are std::runtime_error with one line "<path>: <what>": std::system_error when the
// system refuses (its code() says why: std::errc::no_such_file_or_directory, ...), plain
// std::runtime_error for a file of the wrong kind or size.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace tinyenc {

// A regular file open for reading; the descriptor is closed on destruction.
class RegularFile {
 public:
  // Throws "<path>: cannot open: <reason>", "<path>: is a folder, not a file" or
  // "<path>: not a regular file".
  explicit RegularFile(const std::filesystem::path& path);
  ~RegularFile();
  RegularFile(const RegularFile&) = delete;
  RegularFile& operator=(const RegularFile&) = delete;

  int descriptor() const { return descriptor_; }
  // The size when the file was opened.
  uint64_t size() const { return size_; }

 private:
  int descriptor_ = -1;
  uint64_t size_ = 0;
};

// The whole content of the regular file `path`, refused ("<path>: <n> bytes, more than the
// <max_bytes> ...") when it holds more than `max_bytes`: a limit bounds the memory a hostile
// file (a sparse terabyte, a file that keeps growing) can make us take.
std::string read_regular_file(const std::filesystem::path& path, uint64_t max_bytes);

// What `path` names, symbolic links followed: file_type::not_found when nothing is there (a
// dangling link included). Throws std::runtime_error("<path>: <reason>") when the system cannot
// tell, such as a loop of symbolic links or a folder without search permission.
std::filesystem::file_type file_type_of(const std::filesystem::path& path);

}  // namespace tinyenc
