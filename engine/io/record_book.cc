#include "engine/io/record_book.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string_view>
#include <system_error>

namespace tinyenc {
namespace {

// Closes the descriptor (and so drops its lock) on every way out.
class Descriptor {
 public:
  explicit Descriptor(int descriptor) : descriptor_(descriptor) {}
  ~Descriptor() {
    if (descriptor_ >= 0) ::close(descriptor_);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return descriptor_; }

 private:
  int descriptor_;
};

bool valid_field(std::string_view text) {
  return !text.empty() && text.find_first_of("\t\n") == std::string_view::npos;
}

bool write_all(int descriptor, std::string_view text) {
  while (!text.empty()) {
    const ssize_t written = ::write(descriptor, text.data(), text.size());
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return false;
    text.remove_prefix(static_cast<size_t>(written));
  }
  return true;
}

}  // namespace

off_t RecordBook::read_lines(int descriptor) {
  std::string content;
  char block[1 << 14];
  for (;;) {
    const ssize_t got =
        ::pread(descriptor, block, sizeof block, static_cast<off_t>(content.size()));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    content.append(block, static_cast<size_t>(got));
  }
  std::string_view rest = content;
  for (size_t end = rest.find('\n'); end != std::string_view::npos; end = rest.find('\n')) {
    const std::string_view line = rest.substr(0, end);
    rest.remove_prefix(end + 1);
    const size_t tab = line.find('\t');
    if (tab == std::string_view::npos) continue;
    const std::string_view key = line.substr(0, tab), value = line.substr(tab + 1);
    if (valid_field(key) && valid_field(value)) known_.try_emplace(std::string(key), value);
  }
  return static_cast<off_t>(content.size() - rest.size());
}

std::optional<std::string> RecordBook::find_or_add(const std::string& key,
                                                   const std::function<std::string()>& make) {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = known_.find(key); it != known_.end()) return it->second;
  if (!valid_field(key)) return std::nullopt;

  std::error_code ignored;
  std::filesystem::create_directories(path_.parent_path(), ignored);
  const Descriptor file(::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  if (file.get() < 0) return std::nullopt;
  int locked;
  while ((locked = ::flock(file.get(), LOCK_EX)) != 0 && errno == EINTR) {
  }
  if (locked != 0) return std::nullopt;
  struct stat status {};
  if (::fstat(file.get(), &status) != 0 || !S_ISREG(status.st_mode)) return std::nullopt;

  // Another process may have added it since this one last read.
  const off_t complete = read_lines(file.get());
  if (auto it = known_.find(key); it != known_.end()) return it->second;

  const std::string value = make();
  if (!valid_field(value)) return std::nullopt;
  // A torn last line (no newline: a writer killed mid-line) goes; then the new line, or nothing.
  const std::string line = key + "\t" + value + "\n";
  if (::ftruncate(file.get(), complete) != 0 || ::lseek(file.get(), complete, SEEK_SET) < 0) {
    return std::nullopt;
  }
  if (!write_all(file.get(), line)) {
    if (::ftruncate(file.get(), complete) != 0) {
      // A torn line is skipped by every reader and cut off by the next writer.
    }
    return std::nullopt;
  }
  known_.emplace(key, value);
  return value;
}

}  // namespace tinyenc
