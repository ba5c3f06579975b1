// Where a command's results go: standard output, or a file written atomically (a temporary file
// in the same folder, renamed over the target once everything is written, so an interrupted run
// never leaves a half-written file). Also the JSON spelling of float32 values.
#pragma once

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
  void commit();  // closes and renames into place

 private:
  std::FILE* file_;
  std::filesystem::path target_;
  std::filesystem::path temporary_;
  bool committed_ = false;
};

// The double that prints as the shortest decimal reading back to `value` (so JSON shows
// 0.84147096, not 0.8414709568023682).
double json_float(float value);
std::vector<double> json_floats(const std::vector<float>& values);

}  // namespace tinyenc::cli
