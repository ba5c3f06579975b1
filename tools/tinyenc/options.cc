#include "options.h"

#include <tinyenc/options.h>
#include <tinyenc/text.h>
#include <tinyenc/tinyenc.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "command.h"

namespace tinyenc::cli {
namespace {

// Shortest spelling that reads back as `value`: "0.5", "inf", "nan", "1e+300".
std::string spell(double value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

struct FormatSpelling {
  OutputFormat format;
  const char* word;       // as -f takes it
  const char* extension;  // of an -o file
  const char* flag;       // "" when the format has no flag of its own
};
constexpr FormatSpelling kFormats[] = {
    // No extension for text: `bench -o notes.txt` is a name, not a request for a format.
    {OutputFormat::kText, "text", "", ""},
    {OutputFormat::kMarkdown, "md", ".md", ""},
    {OutputFormat::kCsv, "csv", ".csv", "--csv"},
    {OutputFormat::kJson, "json", ".json", "--json"},
    {OutputFormat::kJsonl, "jsonl", ".jsonl", "--jsonl"},
};

const FormatSpelling& spelling(OutputFormat format) {
  for (const FormatSpelling& entry : kFormats) {
    if (entry.format == format) return entry;
  }
  return kFormats[0];
}

// How a user asks for `format` on this command, for hints: "--json", or "-f md".
std::string how_to_ask(OutputFormat format, bool has_format_option) {
  const FormatSpelling& entry = spelling(format);
  if (*entry.flag) return entry.flag;
  return has_format_option ? std::string("-f ") + entry.word : std::string("the default");
}

}  // namespace

void add_dtype_option(CLI::App& command, std::string& dtype, bool list) {
  const std::string what =
      list ? "Compute dtypes to measure, each its own row: f32,bf16,int8,auto" : "Compute dtype";
  command
      .add_option("--dtype", dtype,
                  what +
                      " (f32, bf16, int8, auto: the fastest that meets the accuracy gates on "
                      "this CPU; default: int8 or bf16 for a folder written by tinyenc "
                      "convert, f32 otherwise; see tinyenc info)")
      ->type_name(list ? "DTYPE,..." : "DTYPE");
}

std::vector<std::string> parse_dtype_list(const std::string& text) {
  std::vector<std::string> names;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    names.push_back(
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (names.size() == 1 && names[0].empty()) return names;
  for (const std::string& name : names) {
    if (name.empty()) throw UsageError("--dtype: empty name in '" + text + "'");
    try {
      check_dtype(name);
    } catch (const Error& e) {
      throw UsageError(std::string("--") + e.what());
    }
  }
  return names;
}

std::string checked_dtype(const std::string& text) {
  const std::vector<std::string> names = parse_dtype_list(text);
  if (names.size() != 1) {
    throw UsageError("--dtype: one dtype here, got '" + text + "' (bench measures several)");
  }
  return names[0];
}

void add_input_options(CLI::App& command, InputOptions& options) {
  command.add_option("TEXT", options.texts,
                     "Texts ('-' reads standard input; put -- before a text that starts with -)");
  command
      .add_option("-i,--input", options.file, "File with one text per line ('-': standard input)")
      ->type_name("FILE");
  // One text is one argument or one line, so a pair travels as one: tab-separated, as in a TSV
  // file (a shell writes the tab in an argument as $'first\tsecond').
  command.add_flag("--pair", options.pair,
                   "Each text is a sentence pair, its two halves separated by a tab");
}

std::pair<std::string_view, std::string_view> split_pair(std::string_view text) {
  const size_t tab = text.find('\t');
  if (tab == std::string_view::npos) {
    throw std::invalid_argument("--pair: no tab between the two texts of " +
                                in_quotes(std::string(text)));
  }
  return {text.substr(0, tab), text.substr(tab + 1)};
}

std::string format_name(OutputFormat format) {
  switch (format) {
    case OutputFormat::kText:
      return "text";
    case OutputFormat::kMarkdown:
      return "Markdown";
    case OutputFormat::kCsv:
      return "CSV";
    case OutputFormat::kJson:
      return "JSON";
    case OutputFormat::kJsonl:
      return "JSON lines";
  }
  return "text";
}

OutputFormat OutputOptions::format() const {
  const auto offered = [&](OutputFormat format) {
    return std::find(formats.begin(), formats.end(), format) != formats.end();
  };
  std::string names;
  for (OutputFormat format : formats) {
    names += (names.empty() ? "" : ", ") + format_name(format);
  }

  // `-o json` is how llama-bench and others choose a format; here -o names a file, and a file
  // called "json" is never what was meant.
  std::string lower = path;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const char* word : {"json", "jsonl", "csv", "md", "markdown"}) {
    if (lower != word) continue;
    OutputFormat meant = OutputFormat::kMarkdown;
    for (const FormatSpelling& entry : kFormats) {
      if (lower == entry.word) meant = entry.format;
    }
    std::string hint = "-o " + path + ": -o takes a file name, not a format";
    if (offered(meant)) {
      hint += "; for " + format_name(meant) + " write " + how_to_ask(meant, format_option) +
              " (to a file: -o FILE" + spelling(meant).extension + ")";
    } else {
      hint += "; this command writes " + names;
    }
    throw UsageError(hint);
  }

  std::optional<OutputFormat> asked;
  std::string asked_by;
  const auto ask = [&](OutputFormat format, const std::string& by) {
    if (asked && *asked != format) {
      throw UsageError(by + " and " + asked_by + " ask for different formats; give one");
    }
    asked = format;
    asked_by = by;
  };
  if (json) ask(OutputFormat::kJson, "--json");
  if (jsonl) ask(OutputFormat::kJsonl, "--jsonl");
  if (csv) ask(OutputFormat::kCsv, "--csv");
  if (!format_word.empty()) {
    std::optional<OutputFormat> named;
    for (const FormatSpelling& entry : kFormats) {
      if (format_word == entry.word && offered(entry.format)) named = entry.format;
    }
    if (format_word == "markdown" && offered(OutputFormat::kMarkdown))
      named = OutputFormat::kMarkdown;
    if (!named) {
      std::string words;
      for (OutputFormat format : formats) {
        words += (words.empty() ? "" : ", ") + std::string(spelling(format).word);
      }
      throw UsageError("-f/--format: expected " + words + ", got " + in_quotes(format_word));
    }
    ask(*named, "-f " + format_word);
  }

  const std::string extension = std::filesystem::path(path).extension().string();
  std::optional<OutputFormat> by_extension;
  for (const FormatSpelling& entry : kFormats) {
    if (*entry.extension && extension == entry.extension) by_extension = entry.format;
  }
  if (extension == ".markdown") by_extension = OutputFormat::kMarkdown;
  if (by_extension && !offered(*by_extension)) {
    throw UsageError("-o " + path + ": this command writes " + names + ", not " +
                     format_name(*by_extension));
  }
  if (by_extension && asked && *by_extension != *asked) {
    throw UsageError("-o " + path + " is named as " + format_name(*by_extension) + " but " +
                     asked_by + " asks for " + format_name(*asked));
  }
  if (asked) return *asked;
  if (by_extension) return *by_extension;
  return formats.front();
}

void add_output_options(CLI::App& command, OutputOptions& options,
                        std::vector<OutputFormat> formats, bool format_option) {
  options.formats = std::move(formats);
  options.format_option = format_option;
  std::string extensions;
  for (OutputFormat format : options.formats) {
    if (format == OutputFormat::kText) continue;
    extensions += (extensions.empty() ? "" : ", ") + std::string(spelling(format).extension);
  }
  command
      .add_option("-o,--output", options.path,
                  "Write to FILE instead of stdout (a regular file is replaced only once all is "
                  "done); its extension (" +
                      extensions + ") chooses the format")
      ->type_name("FILE");
  std::vector<CLI::Option*> flags;
  const auto offered = [&](OutputFormat format) {
    return std::find(options.formats.begin(), options.formats.end(), format) !=
           options.formats.end();
  };
  if (offered(OutputFormat::kJson))
    flags.push_back(command.add_flag("--json", options.json, "One JSON document"));
  if (offered(OutputFormat::kJsonl))
    flags.push_back(
        command.add_flag("--jsonl", options.jsonl, "One JSON line per result, streamed"));
  if (offered(OutputFormat::kCsv))
    flags.push_back(
        command.add_flag("--csv", options.csv, "CSV, a header line then a row per result"));
  for (size_t i = 0; i < flags.size(); ++i) {
    for (size_t k = i + 1; k < flags.size(); ++k) flags[i]->excludes(flags[k]);
  }
  if (format_option) {
    std::string words;
    for (OutputFormat format : options.formats) {
      words += (words.empty() ? "" : " | ") + std::string(spelling(format).word);
    }
    command.add_option("-f,--format", options.format_word,
                       words + " (default " + spelling(options.formats.front()).word +
                           "; also chosen by -o FILE's extension)");
  }
}

std::vector<int32_t> parse_integer_list(const std::string& text, const std::string& option,
                                        const std::string& what) {
  std::vector<int32_t> values;
  std::stringstream stream(text);
  for (std::string item; std::getline(stream, item, ',');) {
    try {
      size_t used = 0;
      const long long value = std::stoll(item, &used);
      if (used != item.size() || value < INT32_MIN || value > INT32_MAX) throw std::exception();
      values.push_back(static_cast<int32_t>(value));
    } catch (const std::exception&) {
      throw UsageError(option + ": " + in_quotes(item) + " is not an " + what);
    }
  }
  if (values.empty()) throw UsageError(option + ": no numbers given");
  return values;
}

void add_threads_option(CLI::App& command, int& threads) {
  command
      .add_option("--threads", threads,
                  "Threads (0: one per logical CPU this process may run on, its affinity "
                  "mask, hyper-threads included; at most 4 per CPU)")
      ->capture_default_str();
}

void add_thread_counts_option(CLI::App& command, std::string& thread_counts,
                              const std::string& reason) {
  command
      .add_option("--threads", thread_counts,
                  "Thread counts, comma-separated (0: one per logical CPU this process may run "
                  "on, its affinity mask, hyper-threads included; at most 4 per CPU). " +
                      reason)
      ->capture_default_str();
}

int checked_threads(int64_t threads, const std::string& option) {
  if (threads < 0 || threads > most_threads()) {
    throw UsageError(option + " " + std::to_string(threads) + ": expected 0 (all " +
                     std::to_string(default_threads()) + " CPUs) to " +
                     std::to_string(most_threads()) + " (4 threads per CPU)");
  }
  return threads > 0 ? static_cast<int>(threads) : default_threads();
}

CLI::Option* add_position_offset_option(CLI::App& command, int64_t& position_offset) {
  return command
      .add_option("--position-offset", position_offset,
                  "Add K to every position id, as if each input began K tokens later (0 to " +
                      std::to_string(max_position_offset()) +
                      "): relative PE kinds (rope, alibi, relative) answer the same, absolute "
                      "ones (sinusoidal, learned) differently; a learned table refuses positions "
                      "past its end")
      ->type_name("K")
      ->capture_default_str();
}

void check_position_offset(int64_t position_offset) {
  check_range("--position-offset", position_offset, 0, max_position_offset());
}

void check_range(const std::string& option, int64_t value, int64_t lowest, int64_t highest) {
  if (value < lowest || value > highest) {
    throw UsageError(option + " " + std::to_string(value) + ": expected " + std::to_string(lowest) +
                     " to " + std::to_string(highest));
  }
}

void check_range(const std::string& option, double value, double lowest, double highest) {
  if (!std::isfinite(value) || value < lowest || value > highest) {
    throw UsageError(option + " " + spell(value) + ": expected a number from " + spell(lowest) +
                     " to " + spell(highest));
  }
}

}  // namespace tinyenc::cli
