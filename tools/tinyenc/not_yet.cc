// Subcommands whose engine parts are not built yet: they parse their basic options and say so.
#include <string>

#include "tools/tinyenc/command.h"

namespace tinyenc::cli {
namespace {

RunCommand add_pending(CLI::App& root, const std::string& name, const std::string& description) {
  CLI::App* command = root.add_subcommand(name, description + " (not available yet)");
  command->allow_extras();
  return [name]() -> int {
    throw std::runtime_error("'" + name + "' is not available in this version of tinyenc");
  };
}

}  // namespace

RunCommand add_run_command(CLI::App& root) {
  return add_pending(root, "run", "Run a model on texts: labels, logits, embeddings");
}
RunCommand add_tokenize_command(CLI::App& root) {
  return add_pending(root, "tokenize", "Split texts into tokens and ids");
}
RunCommand add_order_command(CLI::App& root) {
  return add_pending(root, "order", "Word-order sensitivity experiments");
}
RunCommand add_bench_command(CLI::App& root) {
  return add_pending(root, "bench", "Latency and per-stage breakdown");
}

}  // namespace tinyenc::cli
