// tinyenc: a small, fast Transformer encoder for the CPU.
#include <tinyenc/info.h>
#include <tinyenc/tinyenc.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <iterator>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "command.h"

namespace {

int fail(int code, const std::string& message) {
  std::fprintf(stderr, "tinyenc: error: %s\n", message.c_str());
  return code;
}

// The arguments after the program name, in the reverse order CLI::App::parse takes them. CLI11
// lets `--` end the values of a list option (`--models A B -- ...`) and then goes on reading
// options, whereas after any other option `--` ends the options: `order --models A -- --json`
// would read --json as the flag, `order -m A -- --json` as a sentence. A second `--` after such a
// list gives `--` the one meaning it has everywhere else.
std::vector<std::string> arguments(int argc, char** argv, const CLI::App& app) {
  std::vector<std::string> args(argv + 1, argv + argc);
  const auto end = std::find(args.begin(), args.end(), std::string("--"));
  if (end != args.end() && !args.empty()) {
    const CLI::App* command = nullptr;
    for (const CLI::App* candidate : app.get_subcommands([](const CLI::App*) { return true; })) {
      if (candidate->get_name() == args.front()) command = candidate;
    }
    // The option whose values run up to the `--`: the last argument before it that is one.
    auto option =
        std::find_if(std::make_reverse_iterator(end), args.rend(),
                     [](const std::string& arg) { return arg.size() > 1 && arg[0] == '-'; });
    if (command != nullptr && option != args.rend() && option.base() != end &&
        option->find('=') == std::string::npos) {
      const CLI::Option* list = command->get_option_no_throw(*option);
      if (list != nullptr && list->get_allow_extra_args() &&
          list->get_items_expected_max() >= CLI::detail::expected_max_vector_size / 16) {
        args.insert(end, "--");
      }
    }
  }
  std::reverse(args.begin(), args.end());
  return args;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tinyenc::cli;
  CLI::App app{"tinyenc: a small, fast Transformer encoder inference engine for the CPU"};
  app.require_subcommand(1, 1);
  app.set_version_flag("--version", "tinyenc " + tinyenc::version());

  struct Entry {
    CLI::App* command;
    RunCommand run;
  };
  std::vector<Entry> entries;
  for (auto add : {add_run_command, add_tokenize_command, add_order_command, add_bench_command,
                   add_convert_command, add_pe_command, add_info_command}) {
    RunCommand run = add(app);
    entries.push_back({app.get_subcommands({}).back(), std::move(run)});
  }

  if (argc > 1 && argv[1][0] != '-') {
    std::string names;
    bool known = false;
    for (const Entry& entry : entries) {
      known = known || entry.command->get_name() == argv[1];
      names += (names.empty() ? "" : ", ") + entry.command->get_name();
    }
    if (!known)
      return fail(2, std::string("unknown command '") + argv[1] + "' (expected " + names + ")");
  }

  try {
    std::vector<std::string> args = arguments(argc, argv, app);
    app.name(argv[0]);  // as parse(argc, argv) names it, for the usage line
    app.parse(args);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ArgumentMismatch& e) {
    // CLI11 says "--threads: At Most 1 required but received 2": say it as a person would.
    const std::string message = e.what();
    const size_t at_most = message.find(": At Most 1 required but received ");
    if (at_most != std::string::npos) {
      return fail(2, message.substr(0, at_most) + " is given more than once; give it once (see " +
                         "tinyenc --help)");
    }
    return fail(2, message + " (see tinyenc --help)");
  } catch (const CLI::ParseError& e) {
    return fail(2, std::string(e.what()) + " (see tinyenc --help)");
  }

  // An empty value (`--shard ''`, a variable that was never set) is never what was meant:
  // silently taking it as "not given" would run something else than was asked for.
  for (const Entry& entry : entries) {
    if (!entry.command->parsed()) continue;
    for (const CLI::Option* option : entry.command->get_options()) {
      if (option->get_positional() || option->get_type_size_max() == 0) continue;
      for (const std::string& value : option->results()) {
        if (!value.empty()) continue;
        const std::string type = option->get_type_name();
        return fail(2, option->get_name(false, true) + ": an empty value; expected " +
                           (type.empty() ? std::string("a value") : type) +
                           " (see tinyenc --help)");
      }
    }
  }

  try {
    for (const Entry& entry : entries) {
      if (entry.command->parsed()) {
        const int code = entry.run();
        // Whatever a command printed must have reached standard output: a full disk or a
        // closed pipe is an error, not a silent success.
        errno = 0;
        if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
          return fail(1, std::string("standard output: ") + std::strerror(errno ? errno : EIO));
        }
        return code;
      }
    }
    return fail(2, "no subcommand given (see tinyenc --help)");
  } catch (const UsageError& e) {
    return fail(2, e.what());
  } catch (const tinyenc::Error& e) {
    // The library sorts its errors as this program's exit codes do: bad input, or a failure.
    return fail(e.kind() == tinyenc::Error::Kind::kBadInput ? 2 : 1, e.what());
  } catch (const std::invalid_argument& e) {
    return fail(2, e.what());
  } catch (const std::out_of_range& e) {
    return fail(2, e.what());
  } catch (const std::filesystem::filesystem_error& e) {
    // A path that cannot be looked at (a symlink loop, a name too long): say which and why in
    // the documented form, not the library's "filesystem error: status: ...".
    return fail(2, e.path1().string() + ": " + e.code().message());
  } catch (const std::bad_alloc&) {
    return fail(1, "out of memory");
  } catch (const std::exception& e) {
    return fail(1, e.what());
  }
}
