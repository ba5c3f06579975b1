#include "tests/support/run_program.h"

#include <sys/wait.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/temp_folder.h"

namespace tinyenc::testing {

ProgramResult run_program(const std::string& program, const std::string& arguments,
                          const std::string& input, const std::string& environment) {
  static std::atomic<int> counter{0};
  const TempFolder dir("tinyenc_program", std::to_string(counter++));
  std::ofstream(dir / "in", std::ios::binary) << input;
  const std::string command = environment + " " + program + " " + arguments + " <" +
                              (dir / "in").string() + " >" + (dir / "out").string() + " 2>" +
                              (dir / "err").string();
  const int status = std::system(command.c_str());
  ProgramResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = read_text(dir / "out");
  result.err = read_text(dir / "err");
  return result;
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// (Built by appending: GCC 12 gives a false -Wrestrict warning for "'" + string + "'", GCC bug
// 105329.)
std::string shell_quote(const std::filesystem::path& path) {
  std::string quoted = "'";
  quoted += path.string();
  quoted += '\'';
  return quoted;
}

int count_lines(const std::string& text) {
  int lines = 0;
  for (char c : text) lines += c == '\n';
  return lines;
}

}  // namespace tinyenc::testing
