// Subcommands whose engine parts are not built yet: they parse their basic options and say so.
#include <string>

#include "tools/tinyenc/command.h"

namespace tinyenc::cli {
namespace {

[[maybe_unused]] RunCommand add_pending(CLI::App& root, const std::string& name,
                                        const std::string& description) {
  CLI::App* command = root.add_subcommand(name, description + " (not available yet)");
  command->allow_extras();
  return [name]() -> int {
    throw std::runtime_error("'" + name + "' is not available in this version of tinyenc");
  };
}

}  // namespace

}  // namespace tinyenc::cli
