#include "tools/tinyenc/output.h"

#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <stdexcept>
#include <system_error>

namespace tinyenc::cli {

OutputSink::OutputSink(const std::string& path) : file_(stdout) {
  if (path.empty() || path == "-") return;
  target_ = path;
  temporary_ = target_;
  temporary_ += ".tmp." + std::to_string(::getpid());
  file_ = std::fopen(temporary_.c_str(), "wb");
  if (!file_) {
    throw std::invalid_argument(path + ": cannot write here (" +
                                std::error_code(errno, std::generic_category()).message() + ")");
  }
}

OutputSink::~OutputSink() {
  if (target_.empty() || committed_) return;
  std::fclose(file_);
  std::error_code ignored;
  std::filesystem::remove(temporary_, ignored);
}

void OutputSink::write(const std::string& text) {
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size()) {
    throw std::runtime_error((target_.empty() ? std::string("standard output") : target_.string()) +
                             ": write failed");
  }
}

void OutputSink::flush() { std::fflush(file_); }

void OutputSink::commit() {
  if (target_.empty()) {
    std::fflush(stdout);
    return;
  }
  const bool written = std::fflush(file_) == 0 && ::fsync(::fileno(file_)) == 0;
  std::fclose(file_);
  committed_ = true;
  std::error_code error;
  if (written) std::filesystem::rename(temporary_, target_, error);
  if (!written || error) {
    std::filesystem::remove(temporary_, error);
    throw std::runtime_error(target_.string() + ": could not write the output file");
  }
}

double json_float(float value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer - 1, value);
  *result.ptr = '\0';
  return std::strtod(buffer, nullptr);
}

std::vector<double> json_floats(const std::vector<float>& values) {
  std::vector<double> out;
  out.reserve(values.size());
  for (float value : values) out.push_back(json_float(value));
  return out;
}

}  // namespace tinyenc::cli
