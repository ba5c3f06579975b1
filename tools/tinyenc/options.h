// The options the subcommands share, declared here once so that a flag means the same in every
// subcommand: the texts to read (arguments, -i FILE, --pair), where results go and in which
// format (-o FILE, --json, --jsonl, --csv, -f), and --threads. Also the checks of numeric
// options: CLI11 parses the numbers; what a number may be is decided here, so that `run`,
// `order` and `bench` refuse the same values the same way (exit 2, one line naming the option)
// before any work starts.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tinyenc::cli {

// --- Texts in ----------------------------------------------------------------------------------

struct InputOptions {
  std::vector<std::string> texts;  // arguments; "-" reads standard input
  std::string file;                // -i FILE, one text per line; "-" is standard input
  bool pair = false;               // each text is "first<TAB>second"
};

// Registers the TEXT arguments, -i/--input and --pair.
void add_input_options(CLI::App& command, InputOptions& options);

// The two halves of a --pair text, split at its first tab; throws std::invalid_argument when
// there is none.
std::pair<std::string_view, std::string_view> split_pair(std::string_view text);

// --- Results out -------------------------------------------------------------------------------

enum class OutputFormat { kText, kMarkdown, kCsv, kJson, kJsonl };

// "text", "Markdown", "CSV", "JSON", "JSON lines": for messages.
std::string format_name(OutputFormat format);

struct OutputOptions {
  std::string path = "-";  // -o FILE; "-" is standard output
  bool json = false;
  bool jsonl = false;
  bool csv = false;
  std::string format_word;            // -f/--format, where the command offers it
  std::vector<OutputFormat> formats;  // what the command writes; the first is its default
  bool format_option = false;         // whether the command offers -f

  // The format asked for: a flag (--json, --jsonl, --csv, -f), else the extension of -o FILE
  // (.json, .jsonl, .csv, .md), else the default. Throws UsageError when -o names a bare format
  // word (`-o json` would write a file called "json"), when a flag and the extension disagree,
  // or when the command cannot write the format asked for.
  OutputFormat format() const;
};

// Registers -o/--output and one flag per format of `formats` besides text and Markdown
// (--json, --jsonl, --csv; they exclude each other); with `format_option`, also -f/--format.
// `formats.front()` is the default.
void add_output_options(CLI::App& command, OutputOptions& options,
                        std::vector<OutputFormat> formats, bool format_option = false);

// --- Compute dtype -----------------------------------------------------------------------------

// Registers --dtype: f32, bf16, int8 or auto (models/dtype_choice.h); with `list`, a
// comma-separated list of them (bench measures each). Empty when not given: the model folder's
// default.
void add_dtype_option(CLI::App& command, std::string& dtype, bool list = false);

// --dtype's list, each name checked: an unknown one, or one this CPU cannot run, throws
// UsageError naming it (and the missing CPU feature). "" gives {""}, the folder's default.
std::vector<std::string> parse_dtype_list(const std::string& text);
// The one dtype of a command that runs one, checked as above.
std::string checked_dtype(const std::string& text);

// --- Position offset --------------------------------------------------------------------------

// Registers --position-offset K (Options::position_offset: every position id + K).
CLI::Option* add_position_offset_option(CLI::App& command, int64_t& position_offset);
// Throws UsageError unless 0 <= K <= max_position_offset() (<tinyenc/options.h>).
void check_position_offset(int64_t position_offset);

// --- Numbers -----------------------------------------------------------------------------------

// "1,2,3" as int32 integers; `option` names the option in errors (UsageError), `what` the kind of
// number ("integer", "token id").
std::vector<int32_t> parse_integer_list(const std::string& text, const std::string& option,
                                        const std::string& what = "integer");

// --- Threads -----------------------------------------------------------------------------------

// Registers --threads N (0: every logical CPU this process may run on).
void add_threads_option(CLI::App& command, int& threads);
// Registers --threads N,N,... for a sweep; `reason` says why its default is what it is.
void add_thread_counts_option(CLI::App& command, std::string& thread_counts,
                              const std::string& reason);

// `threads` if 1 <= threads <= most_threads(), the CPUs for 0 (RuntimeInfo::cpus, the 0 of the
// library's Options::threads: <tinyenc/options.h>, <tinyenc/info.h>); otherwise throws
// UsageError naming `option`.
int checked_threads(int64_t threads, const std::string& option = "--threads");

// Throws UsageError naming `option` unless lowest <= value <= highest (integers).
void check_range(const std::string& option, int64_t value, int64_t lowest, int64_t highest);
// The same for real numbers, which must also be finite (NaN and Inf compare false to every
// bound, so a plain range check lets them through).
void check_range(const std::string& option, double value, double lowest, double highest);

}  // namespace tinyenc::cli
