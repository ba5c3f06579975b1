// The subcommands of the `tinyenc` program, one file each. A subcommand registers its options
// on the root CLI11 app and returns the function that runs it once parsing succeeded.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <stdexcept>

namespace tinyenc::cli {

using RunCommand = std::function<int()>;

// Bad input or usage: the program prints "tinyenc: error: <message>" and exits with 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

RunCommand add_pe_command(CLI::App& root);
RunCommand add_info_command(CLI::App& root);
RunCommand add_run_command(CLI::App& root);
RunCommand add_tokenize_command(CLI::App& root);
RunCommand add_order_command(CLI::App& root);
RunCommand add_bench_command(CLI::App& root);
RunCommand add_convert_command(CLI::App& root);

}  // namespace tinyenc::cli
