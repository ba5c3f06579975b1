// Where a command's results go: standard output, or a file. Writing a result must never destroy
// what the path named before, nor leave debris beside it. So nothing reaches a file before
// commit(); an error before it leaves the file exactly as it was, and what commit() does depends
// on what the path names:
//  - a regular file with one link, or nothing yet: results go to a hidden temporary beside it,
//    ".<name>.tinyenc-tmp.<pid>", which takes the old file's mode (and owner, where allowed; a new
//    file gets 0666 & ~umask) and is renamed over it: a reader sees the old file or the new one.
//  - a regular file with more than one hard link: a rename would cut the other links, so results
//    still collect in the temporary and commit() copies them into the existing file, truncating
//    it. Links, mode and owner stay; the copy is not atomic for a concurrent reader, but SIGINT,
//    SIGTERM and SIGHUP wait until it is done, so it is never left half-way by an interrupt.
//  - a symbolic link: followed; the file it names is written as above and the link stays.
//  - a character or block device, a FIFO, a socket: written directly as the shell's `>` would,
//    with no temporary (renaming over them would destroy them).
// Refused up front with std::invalid_argument (bad input): a directory, a file the user may not
// write (judged as the shell's `>` would judge it, so root may), a folder where the temporary
// cannot be created.
// On SIGINT, SIGTERM or SIGHUP the open temporaries are removed and the process dies of the
// signal. A SIGKILL cannot be caught: its leftover is removed the next time the same target is
// written, once no process with the pid in its name is alive.
// Also the JSON spelling of float32 values.
#pragma once

#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace tinyenc::cli {

class OutputSink {
 public:
  // path "" or "-" means standard output.
  explicit OutputSink(const std::string& path);
  ~OutputSink();  // removes the temporary file unless commit() ran
  OutputSink(const OutputSink&) = delete;
  OutputSink& operator=(const OutputSink&) = delete;

  void write(const std::string& text);
  void flush();   // after each JSON line: streaming output reaches the reader
  void commit();  // puts the results in place (see above) and closes

 private:
  enum class Kind { kStandardOutput, kReplace, kCopyInto, kDirect };

  void open_temporary(const std::filesystem::path& beside, const struct ::stat* keep);
  void discard_temporary();
  std::string where() const;

  Kind kind_ = Kind::kStandardOutput;
  std::FILE* file_;
  std::string path_;                 // as the user gave it, for messages
  std::filesystem::path target_;     // kReplace: what the temporary is renamed to
  std::filesystem::path temporary_;  // kReplace, kCopyInto
  int existing_ = -1;                // kCopyInto: the file the results are copied into
  int signal_slot_ = -1;             // where the signal handler finds the temporary's name
  bool committed_ = false;
};

// The double that prints as the shortest decimal reading back to `value` (so JSON shows
// 0.84147096, not 0.8414709568023682).
double json_float(float value);
std::vector<double> json_floats(const std::vector<float>& values);

}  // namespace tinyenc::cli
