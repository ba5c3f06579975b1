// A small file of "key<TAB>value" lines that processes share: what one process worked out (a
// measurement, say) is read back by the next instead of worked out again, and so every process
// on the machine gets the same answer. Reads and appends happen under an exclusive flock(), and
// the value of a missing key is made while the lock is held: processes starting together wait for
// the first one's answer rather than each making its own.
//
// A line is appended with one write() and counts only once it ends in a newline; a torn or
// malformed line is skipped, the first line of a key wins, and a torn last line (a process killed
// mid-write, a full disk) is cut off by the next writer, so the file never keeps half a record.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace tinyenc {

class RecordBook {
 public:
  explicit RecordBook(std::filesystem::path path) : path_(std::move(path)) {}

  const std::filesystem::path& path() const { return path_; }

  // The value recorded under `key`, else make()'s value, recorded. nullopt, with make() not
  // called, when the file cannot be opened (its folder is created if missing) or locked; nullopt
  // after make() when its value cannot be appended. Keys and values hold no tab or newline.
  // Thread-safe; make() may throw (nothing is recorded then).
  std::optional<std::string> find_or_add(const std::string& key,
                                         const std::function<std::string()>& make);

 private:
  // Reads the complete lines into known_; returns their length in bytes.
  off_t read_lines(int descriptor);

  std::filesystem::path path_;
  std::mutex mutex_;
  std::map<std::string, std::string, std::less<>> known_;
};

}  // namespace tinyenc
