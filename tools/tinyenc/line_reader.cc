#include "line_reader.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace tinyenc::cli {

LineReader::LineReader(int fd, std::string name) : fd_(fd), name_(std::move(name)) {}

LineReader::LineReader(const std::string& path, Endless endless) : fd_(-1), name_(path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) {
    throw std::invalid_argument(path + ": cannot open the input file: " + std::strerror(errno));
  }
  owns_fd_ = true;
  struct stat status;
  if (::fstat(fd_, &status) == 0 && S_ISDIR(status.st_mode)) {
    ::close(fd_);
    throw std::invalid_argument(path + ": is a directory, not a file of texts");
  }
  // A device (/dev/zero, /dev/urandom) never ends; a pipe does when its writer is done.
  if (endless == Endless::kRefuse && ::fstat(fd_, &status) == 0 && !S_ISREG(status.st_mode) &&
      !S_ISFIFO(status.st_mode) && !S_ISSOCK(status.st_mode)) {
    ::close(fd_);
    throw std::invalid_argument(path + ": not a regular file or a pipe; give a file of texts");
  }
}

LineReader::~LineReader() {
  if (owns_fd_) ::close(fd_);
}

void LineReader::too_long() const {
  throw std::invalid_argument(name_ + " line " + std::to_string(line_number_ + 1) +
                              ": longer than " + std::to_string(kMaxLineBytes >> 20) +
                              " MiB; one line is one text");
}

LineReader::Status LineReader::next(std::string& line, int wait_ms) {
  for (;;) {
    const size_t newline = buffer_.find('\n', scanned_);
    if (newline != std::string::npos || (end_of_input_ && start_ < buffer_.size())) {
      const size_t end = newline != std::string::npos ? newline : buffer_.size();
      // The line itself, however it arrived: a newline in the same read as the 64 MiB before it
      // does not make the line shorter.
      if (end - start_ > kMaxLineBytes) too_long();
      line.assign(buffer_, start_, end - start_);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      start_ = scanned_ = std::min(end + 1, buffer_.size());
      ++line_number_;
      return Status::kLine;
    }
    if (end_of_input_) return Status::kEnd;
    scanned_ = buffer_.size();
    if (scanned_ - start_ > kMaxLineBytes) too_long();
    if (wait_ms >= 0) {
      pollfd ready{fd_, POLLIN, 0};
      const int events = ::poll(&ready, 1, wait_ms);
      if (events == 0) return Status::kPause;
      if (events < 0 && errno == EINTR) continue;
    }
    // Drop the lines already returned before the buffer grows.
    buffer_.erase(0, start_);
    scanned_ -= start_;
    start_ = 0;
    const size_t old_size = buffer_.size();
    buffer_.resize(old_size + 65536);
    const ssize_t count = ::read(fd_, buffer_.data() + old_size, 65536);
    const int read_error = errno;
    buffer_.resize(old_size + static_cast<size_t>(count > 0 ? count : 0));
    if (count == 0) {
      end_of_input_ = true;
    } else if (count < 0 && read_error != EINTR && read_error != EAGAIN) {
      throw std::invalid_argument(name_ + ": cannot read: " + std::strerror(read_error));
    } else if (count < 0 && read_error == EAGAIN) {
      pollfd ready{fd_, POLLIN, 0};  // a descriptor left non-blocking by whoever opened it
      ::poll(&ready, 1, -1);
    }
  }
}

}  // namespace tinyenc::cli
