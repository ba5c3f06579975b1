// The options every subcommand shares mean one thing everywhere: -o names a file and its
// extension picks the format (a bare format word is refused), --json/--jsonl/--csv, --batch-size,
// --threads, --pair; numbers are printed as the shortest spelling of their float32 value; and
// the commands the README and docs/ show run as written.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/cli.h"
#include "tests/support/run_program.h"
#include "tests/support/temp_folder.h"
#include "tests/support/test_data.h"

namespace tinyenc {
namespace {

namespace fs = std::filesystem;
using testing::count_lines;
using testing::pretrained_model;
using testing::ProgramResult;
using testing::run_tinyenc;
using testing::shell_quote;

// Runs the program with `folder` as the working directory.
ProgramResult run_in(const fs::path& folder, const std::string& arguments) {
  return testing::run_program("cd " + shell_quote(folder) + " && " + TINYENC_BINARY, arguments);
}

void expect_usage_error(const ProgramResult& result, const std::string& mentions) {
  testing::expect_one_line_error(result, mentions);
}

const std::string kQuickBench = "bench --config tiny --seq 8 --threads 1 --repeat 2";

// `-o json` is how llama-bench chooses JSON; here it would have written a Markdown table to a file
// called "json". A bare format word is refused with a hint, and no file appears.
TEST(CliOptions, BareFormatWordIsNotAFileName) {
  const testing::TempFolder temp("tinyenc_cli_options");
  const fs::path& dir = temp.path();
  for (const std::string word : {"json", "jsonl", "csv", "md", "markdown"}) {
    expect_usage_error(run_in(dir, kQuickBench + " -o " + word), "-o " + word);
    EXPECT_FALSE(fs::exists(dir / word)) << word;
  }
  expect_usage_error(run_in(dir, kQuickBench + " -o json"), "--json");
  expect_usage_error(run_in(dir, "run --threads 1 -m " + pretrained_model("order-rope").string() +
                                     " -o json 我打你"),
                     "--json");
  EXPECT_TRUE(fs::is_empty(dir));
}

TEST(CliOptions, OutputFileExtensionChoosesTheFormat) {
  const testing::TempFolder temp("tinyenc_cli_options");
  const fs::path& dir = temp.path();
  ProgramResult result = run_tinyenc(kQuickBench + " -o " + shell_quote(dir / "bench.json"));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "");
  const nlohmann::json document = nlohmann::json::parse(testing::read_text(dir / "bench.json"));
  EXPECT_EQ(document.at("rows").size(), 1u);

  result = run_tinyenc(kQuickBench + " -o " + shell_quote(dir / "bench.csv"));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(testing::read_text(dir / "bench.csv").rfind("model,pe,dtype,matmul,batch,seq,", 0), 0u);

  result = run_tinyenc(kQuickBench + " -o " + shell_quote(dir / "bench.jsonl"));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(nlohmann::json::parse(testing::read_text(dir / "bench.jsonl")).at("seq"), 8);

  result = run_tinyenc("run --threads 1 -m " + pretrained_model("order-rope").string() + " -o " +
                       shell_quote(dir / "run.jsonl") + " 我打你 你打我");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  std::istringstream lines(testing::read_text(dir / "run.jsonl"));
  int records = 0;
  for (std::string line; std::getline(lines, line); ++records) {
    EXPECT_EQ(nlohmann::json::parse(line).at("label"), records == 0 ? "我/I" : "你/you");
  }
  EXPECT_EQ(records, 2);

  result = run_tinyenc("pe --d-model 4 --rows 2 -o " + shell_quote(dir / "pe.csv"));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(testing::read_text(dir / "pe.csv"),
            "position,dim0,dim1,dim2,dim3\n0,0,1,0,1\n"
            "1,0.84147096,0.5403023,0.009999833,0.99995\n");

  // A flag that contradicts the extension, or a format the command does not write, is refused.
  expect_usage_error(run_tinyenc(kQuickBench + " -f csv -o " + shell_quote(dir / "x.json")),
                     "x.json");
  expect_usage_error(run_tinyenc("run --threads 1 -m " + pretrained_model("order-rope").string() +
                                 " -o " + shell_quote(dir / "x.csv") + " a"),
                     "CSV");
  EXPECT_FALSE(fs::exists(dir / "x.json"));
  EXPECT_FALSE(fs::exists(dir / "x.csv"));
}

TEST(CliOptions, BenchTakesJsonAndBatchSizeAsElsewhere) {
  ProgramResult result = run_tinyenc(kQuickBench + " --json --batch-size 1,2");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const nlohmann::json document = nlohmann::json::parse(result.out);
  ASSERT_EQ(document.at("rows").size(), 2u);
  EXPECT_EQ(document["rows"][1].at("batch"), 2);
  // The name it had before still works.
  result = run_tinyenc(kQuickBench + " --jsonl --batch 2");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(nlohmann::json::parse(result.out).at("batch"), 2);
  EXPECT_EQ(run_tinyenc("run --threads 1 --batch 2 -m " + pretrained_model("order-rope").string() +
                        " a b")
                .exit_code,
            0);
}

// A date YYYY-MM-DD somewhere in `line`, with UTC after it.
bool has_utc_date(const std::string& line) {
  const std::string shape = "2000-00-00 ";  // 0: a digit; anything else: itself
  for (size_t i = 0; i + shape.size() <= line.size(); ++i) {
    bool match = true;
    for (size_t k = 0; k < shape.size() && match; ++k) {
      const char c = line[i + k];
      match = shape[k] == '0' ? std::isdigit(static_cast<unsigned char>(c)) != 0 : c == shape[k];
    }
    if (match && line.find("UTC", i + shape.size()) != std::string::npos) return true;
  }
  return false;
}

TEST(CliOptions, BenchSaysWhereWhenAndWithWhat) {
  ProgramResult result = run_tinyenc(kQuickBench);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string first_line = result.out.substr(0, result.out.find('\n'));
  EXPECT_EQ(first_line.rfind("tinyenc 0.", 0), 0u) << first_line;
  EXPECT_NE(first_line.find("oneDNN 2."), std::string::npos) << first_line;
  EXPECT_NE(first_line.find("PE kernels"), std::string::npos) << first_line;
  EXPECT_TRUE(has_utc_date(first_line)) << first_line;

  result = run_tinyenc(kQuickBench + " --json");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const nlohmann::json document = nlohmann::json::parse(result.out);
  EXPECT_EQ(document.at("version").get<std::string>().rfind("0.", 0), 0u);
  EXPECT_NE(document.at("date").get<std::string>().find("UTC"), std::string::npos);
  EXPECT_FALSE(document.at("machine").at("cpu").get<std::string>().empty());
}

// order-learned has 64 positions: the default sweep (8, 32, 128) is cut to fit, with a note; an
// explicit length that does not fit stays an error.
TEST(CliOptions, BenchDefaultSequencesFitTheModel) {
  const std::string bench =
      "bench --threads 1 --repeat 2 -m " + pretrained_model("order-learned").string();
  ProgramResult result = run_tinyenc(bench + " --json");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const nlohmann::json document = nlohmann::json::parse(result.out);
  std::vector<int> seqs;
  for (const auto& row : document.at("rows")) seqs.push_back(row.at("seq"));
  EXPECT_EQ(seqs, (std::vector<int>{8, 32, 64}));
  EXPECT_NE(result.err.find("64 positions"), std::string::npos) << result.err;
  expect_usage_error(run_tinyenc(bench + " --seq 8,128"), "--seq 128");
}

// True when `text` is the shortest spelling that reads back as the float32 it names.
bool is_shortest_float(const std::string& text) {
  const float value = std::strtof(text.c_str(), nullptr);
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr) == text;
}

// Every number with a fraction or exponent in `text`: -?digits(.digits)?([eE][-+]?digits)?.
// (Scanned by hand: GCC 12's <regex> trips -Wmaybe-uninitialized under the sanitizers.)
std::vector<std::string> decimals_in(const std::string& text) {
  const auto digits_from = [&](size_t i) {
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    return i;
  };
  std::vector<std::string> found;
  for (size_t i = 0; i < text.size();) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) {
      ++i;
      continue;
    }
    const size_t start = i > 0 && text[i - 1] == '-' ? i - 1 : i;
    size_t end = digits_from(i);
    bool decimal = false;
    if (end + 1 < text.size() && text[end] == '.' &&
        std::isdigit(static_cast<unsigned char>(text[end + 1]))) {
      end = digits_from(end + 1);
      decimal = true;
    }
    if (end < text.size() && (text[end] == 'e' || text[end] == 'E')) {
      size_t exponent = end + 1;
      if (exponent < text.size() && (text[exponent] == '-' || text[exponent] == '+')) ++exponent;
      if (exponent < text.size() && std::isdigit(static_cast<unsigned char>(text[exponent]))) {
        end = digits_from(exponent);
        decimal = true;
      }
    }
    if (decimal) found.push_back(text.substr(start, end - start));
    i = end;
  }
  return found;
}

TEST(CliOptions, NumbersAreTheShortestSpellingOfTheirFloat32) {
  ProgramResult result = run_tinyenc("run --threads 1 --jsonl -m " +
                                     pretrained_model("order-rope").string() + " 我打你");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  std::vector<std::string> numbers = decimals_in(result.out);
  EXPECT_GT(numbers.size(), 64u);
  result = run_tinyenc(kQuickBench + " --csv");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string rows = result.out.substr(result.out.find('\n') + 1);
  for (const std::string& number : decimals_in(rows)) numbers.push_back(number);
  result = run_tinyenc(kQuickBench + " --json");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string json_rows = result.out.substr(result.out.find("\"rows\""));
  for (const std::string& number : decimals_in(json_rows)) numbers.push_back(number);
  for (const std::string& number : numbers) {
    EXPECT_TRUE(is_shortest_float(number)) << number;
  }
}

// Pooling none: a vector per token (as llama-embedding gives), and the model's head still labels
// from its own pooling.
TEST(CliOptions, PoolingNoneGivesTokenVectorsAndKeepsTheLabel) {
  const ProgramResult result = run_tinyenc("run --threads 1 --json --pooling none -m " +
                                           pretrained_model("order-rope").string() + " 我打你");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const nlohmann::json item = nlohmann::json::parse(result.out).at("inputs").at(0);
  EXPECT_EQ(item.at("label"), "我/I");
  const nlohmann::json& embedding = item.at("embedding");
  ASSERT_EQ(embedding.size(), item.at("tokens").size());
  for (const auto& row : embedding) EXPECT_EQ(row.size(), 64u);

  const ProgramResult text = run_tinyenc("run --threads 1 --pooling none -m " +
                                         pretrained_model("order-rope").string() + " 我打你");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("label   我/I"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("[5 x 64]"), std::string::npos) << text.out;
}

TEST(CliOptions, HiddenStatesInTheTableAreNotSilentlyDropped) {
  const ProgramResult result = run_tinyenc("run --threads 1 --hidden-states -m " +
                                           pretrained_model("order-rope").string() + " 我打你");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.err.find("--hidden-states"), std::string::npos) << result.err;
}

// A pair is one text with a tab between its halves in `run` and `tokenize` alike.
TEST(CliOptions, PairIsOneTextWithATab) {
  const std::string pair = " \"$(printf '我打你\\t你打我')\"";
  const ProgramResult tokens =
      run_tinyenc("tokenize --json --pair -m " + pretrained_model("order-rope").string() + pair);
  ASSERT_EQ(tokens.exit_code, 0) << tokens.err;
  const nlohmann::json item = nlohmann::json::parse(tokens.out).at("inputs").at(0);
  EXPECT_EQ(item.at("text"), "我打你");
  EXPECT_EQ(item.at("text_pair"), "你打我");
  const ProgramResult outputs = run_tinyenc("run --threads 1 --json --pair -m " +
                                            pretrained_model("order-rope").string() + pair);
  ASSERT_EQ(outputs.exit_code, 0) << outputs.err;
  EXPECT_EQ(nlohmann::json::parse(outputs.out).at("inputs").at(0).at("ids"), item.at("ids"));
}

TEST(CliOptions, PeCountsRowsWithRows) {
  const ProgramResult rows = run_tinyenc("pe --d-model 4 --rows 3 --json");
  ASSERT_EQ(rows.exit_code, 0) << rows.err;
  EXPECT_EQ(nlohmann::json::parse(rows.out).at("values").size(), 3u);
  EXPECT_EQ(run_tinyenc("pe --d-model 4 --positions 3 --json").out, rows.out);  // the old spelling
  expect_usage_error(run_tinyenc("pe --d-model 4"), "--rows");
}

TEST(CliOptions, ThreadsHelpSaysWhatItCounts) {
  for (const std::string command : {"run", "bench"}) {
    const ProgramResult help = run_tinyenc(command + " --help");
    EXPECT_NE(help.out.find("logical CPU"), std::string::npos) << command << help.out;
  }
}

// A `build/tinyenc ...` command a Markdown page shows, as a user would paste it.
struct ShownCommand {
  std::string where;      // "docs/commands.md:80"
  std::string arguments;  // what follows "build/tinyenc "
};

std::string trimmed(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

// `line` without a shell comment: a '#' after a blank, outside quotes.
std::string without_comment(const std::string& line) {
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    if (quote != 0) {
      if (line[i] == quote) quote = 0;
    } else if (line[i] == '\'' || line[i] == '"') {
      quote = line[i];
    } else if (line[i] == '#' && i > 0 && (line[i - 1] == ' ' || line[i - 1] == '\t')) {
      return line.substr(0, i);
    }
  }
  return line;
}

// Each `build/tinyenc` command of a shell line, split at "&&".
void add_commands(const std::string& line, const std::string& where,
                  std::vector<ShownCommand>& commands) {
  const std::string program = "build/tinyenc ";
  const std::string shell = without_comment(line);
  for (size_t start = 0; start <= shell.size();) {
    size_t end = shell.find("&&", start);
    if (end == std::string::npos) end = shell.size();
    const std::string piece = trimmed(shell.substr(start, end - start));
    if (piece.rfind(program, 0) == 0) {
      commands.push_back({where, trimmed(piece.substr(program.size()))});
    }
    start = end + 2;
  }
}

// The commands of a page: the shell lines of its code blocks (a console block's "$ " prompt
// removed; a line ending in "\" or "&&" continued by the next) and its inline code spans.
std::vector<ShownCommand> commands_shown(const fs::path& page, const std::string& name) {
  std::ifstream file(page);
  EXPECT_TRUE(file) << page;
  std::vector<std::string> lines;
  for (std::string line; std::getline(file, line);) lines.push_back(line);
  std::vector<ShownCommand> commands;
  bool in_code = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string where = name + ":" + std::to_string(i + 1);
    std::string line = lines[i];
    if (line.rfind("```", 0) == 0) {
      in_code = !in_code;
      continue;
    }
    if (!in_code) {
      // Inline code: the text between each pair of backticks.
      for (size_t open = line.find('`'); open != std::string::npos;) {
        const size_t close = line.find('`', open + 1);
        if (close == std::string::npos) break;
        add_commands(line.substr(open + 1, close - open - 1), where, commands);
        open = line.find('`', close + 1);
      }
      continue;
    }
    if (line.rfind("$ ", 0) == 0) line = line.substr(2);
    for (;;) {
      const std::string end = trimmed(without_comment(line));
      const bool backslash = !end.empty() && end.back() == '\\';
      const bool and_then = end.size() >= 2 && end.compare(end.size() - 2, 2, "&&") == 0;
      if ((!backslash && !and_then) || i + 1 >= lines.size()) break;
      line = (backslash ? end.substr(0, end.size() - 1) : end) + " " + trimmed(lines[++i]);
    }
    add_commands(line, where, commands);
  }
  return commands;
}

// A command the test does not run, and why; `runs_anyway` lets it run when what it needs is there.
struct SkipRule {
  std::string name;
  std::function<bool(const std::string& arguments)> matches;
  std::function<bool()> runs_anyway = [] { return false; };
};

bool has(const std::string& arguments, const std::string& part) {
  return arguments.find(part) != std::string::npos;
}

const std::vector<SkipRule>& skip_rules() {
  static const std::vector<SkipRule> rules = {
      {"takes minutes: a sweep of the base preset",
       [](const std::string& a) { return has(a, "--config base"); }},
      {"takes minutes: the tiny preset up to 512 tokens at batch 8, every PE kind",
       [](const std::string& a) {
         return has(a, "--config tiny") && has(a, "512") && has(a, "--batch-size 1,8");
       }},
      {"needs corpus.txt and the mini model that bench/corpus/ generates with Python",
       [](const std::string& a) { return has(a, "corpus.txt") || has(a, "-m mini"); }},
      {"names a placeholder file (FILE.jsonl) the reader supplies",
       [](const std::string& a) { return has(a, "FILE"); }},
      {"needs the real checkpoints that tools/install-deps.sh --models puts in models/external",
       [](const std::string& a) { return has(a, "models/external/"); },
       [] {
         return fs::exists(testing::source_dir() / "models/external/all-MiniLM-L6-v2") &&
                fs::exists(testing::source_dir() / "models/external/all-mpnet-base-v2");
       }},
  };
  return rules;
}

// README.md and every docs/*.md page, as paths relative to the checkout.
std::vector<std::string> documentation_pages() {
  std::vector<std::string> docs;
  for (const fs::directory_entry& entry : fs::directory_iterator(testing::source_dir() / "docs")) {
    if (entry.path().extension() == ".md") {
      docs.push_back("docs/" + entry.path().filename().string());
    }
  }
  std::sort(docs.begin(), docs.end());
  docs.insert(docs.begin(), "README.md");
  return docs;
}

// The first skip rule that keeps `command` from running, or nullptr.
const SkipRule* skipped_by(const ShownCommand& command) {
  for (const SkipRule& rule : skip_rules()) {
    if (rule.matches(command.arguments) && !rule.runs_anyway()) return &rule;
  }
  return nullptr;
}

// Every `build/tinyenc` command a page shows runs as written and exits 0, in a scratch folder
// that sees the checkout's models/ and bench/ (so that what the commands write, such as figures/
// and bench.json, lands there), in the order shown, so that one may use what an earlier one
// wrote. A command that cannot run here is skipped by a named rule, printed.
class ReadmeAndDocsCommands : public ::testing::TestWithParam<std::string> {};

TEST_P(ReadmeAndDocsCommands, RunAsWritten) {
  const std::string& page = GetParam();
  const std::vector<ShownCommand> commands = commands_shown(testing::source_dir() / page, page);
  if (page == "README.md") {
    EXPECT_GE(commands.size(), 3u);  // the first screen's, one `run`, one `order`
  }
  if (commands.empty()) return;
  const testing::TempFolder temp("tinyenc_cli_options");
  const fs::path& folder = temp.path();
  for (const std::string link : {"models", "bench"}) {
    fs::create_directory_symlink(testing::source_dir() / link, folder / link);
  }
  int run = 0;
  for (const ShownCommand& command : commands) {
    if (const SkipRule* rule = skipped_by(command)) {
      std::cout << "skipped (" << rule->name << "): " << command.where << ": build/tinyenc "
                << command.arguments << "\n";
      continue;
    }
    ++run;
    const ProgramResult result = run_in(folder, command.arguments);
    EXPECT_EQ(result.exit_code, 0)
        << command.where << ": build/tinyenc " << command.arguments << "\n"
        << result.err;
  }
  std::cout << page << ": " << run << " of " << commands.size() << " commands run\n";
}

INSTANTIATE_TEST_SUITE_P(Pages, ReadmeAndDocsCommands, ::testing::ValuesIn(documentation_pages()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (std::isalnum(static_cast<unsigned char>(c)) == 0) c = '_';
                           }
                           return name;
                         });

// The skip rules stay honest: each matches some command the pages show (a rule nothing matches
// any more is removed), and the pages show commands in the number the test expects to run.
TEST(CliOptions, ReadmeAndDocsSkipRulesMatchShownCommands) {
  std::vector<int> matches(skip_rules().size(), 0);
  int commands = 0;
  int runnable = 0;
  for (const std::string& page : documentation_pages()) {
    for (const ShownCommand& command : commands_shown(testing::source_dir() / page, page)) {
      ++commands;
      for (size_t r = 0; r < skip_rules().size(); ++r) {
        if (skip_rules()[r].matches(command.arguments)) ++matches[r];
      }
      if (skipped_by(command) == nullptr) ++runnable;
    }
  }
  for (size_t r = 0; r < skip_rules().size(); ++r) {
    EXPECT_GT(matches[r], 0) << "the rule \"" << skip_rules()[r].name
                             << "\" matches no command of README.md or docs/: remove it";
  }
  EXPECT_GE(commands, 25);
  EXPECT_GE(runnable, 20);
}

}  // namespace
}  // namespace tinyenc
