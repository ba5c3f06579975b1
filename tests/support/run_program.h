// Runs the tinyenc program as a user would, for end-to-end CLI tests.
#pragma once

#include <filesystem>
#include <string>

namespace tinyenc::testing {

struct ProgramResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs `program arguments` through the shell (arguments already quoted), with `environment`
// assignments prepended and `input` on standard input; captures stdout and stderr.
ProgramResult run_program(const std::string& program, const std::string& arguments,
                          const std::string& input = "", const std::string& environment = "");

int count_lines(const std::string& text);

// The whole file as bytes ("" when it cannot be read).
std::string read_text(const std::filesystem::path& path);

// `path` single-quoted for the shell.
std::string shell_quote(const std::filesystem::path& path);

}  // namespace tinyenc::testing
