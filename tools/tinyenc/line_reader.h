// Lines of a file or standard input as they arrive, so that a command can answer each batch of
// lines while the writer at the other end of a pipe is still thinking. Memory is bounded by the
// longest line, not by the input.
#pragma once

#include <cstddef>
#include <string>

namespace tinyenc::cli {

class LineReader {
 public:
  enum class Status { kLine, kPause, kEnd };

  // Reads `fd` (not owned); `name` says where the lines come from in errors ("standard input",
  // a file's path).
  LineReader(int fd, std::string name);
  enum class Endless { kAllow, kRefuse };
  // Opens the file at `path` (a FIFO too: `-i <(command)`). Throws std::invalid_argument when it
  // cannot be opened or is a directory, or with kRefuse a device, which may never end
  // (/dev/zero): for a command that reads everything before it answers.
  explicit LineReader(const std::string& path, Endless endless = Endless::kAllow);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // The next line, without its "\n" or "\r\n"; a last line without "\n" counts too. kPause: no
  // whole line arrived within `wait_ms` milliseconds (-1 waits for as long as it takes). Throws
  // std::invalid_argument for a line over kMaxLineBytes or a read error.
  Status next(std::string& line, int wait_ms = -1);

  // Lines returned so far: the number of the last one.
  size_t line_number() const { return line_number_; }
  const std::string& name() const { return name_; }

  // A text this long is no sentence; refusing it keeps an endless line from using all memory.
  static constexpr size_t kMaxLineBytes = size_t{64} << 20;

 private:
  [[noreturn]] void too_long() const;

  int fd_;
  bool owns_fd_ = false;
  std::string name_;
  std::string buffer_;
  size_t start_ = 0;    // where the next line begins in buffer_
  size_t scanned_ = 0;  // buffer_[start_, scanned_) holds no '\n'
  bool end_of_input_ = false;
  size_t line_number_ = 0;
};

}  // namespace tinyenc::cli
