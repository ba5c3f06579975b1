// The options every subcommand shares mean one thing everywhere: -o names a file and its
// extension picks the format (a bare format word is refused), --json/--jsonl/--csv, --batch-size,
// --threads, --pair; numbers are printed as the shortest spelling of their float32 value; and
// the README's commands run as written.
#include <gtest/gtest.h>

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/cli.h"
#include "tests/support/run_program.h"
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

fs::path scratch(const std::string& name) {
  return testing::scratch_folder("tinyenc_cli_options", name);
}

void expect_usage_error(const ProgramResult& result, const std::string& mentions) {
  testing::expect_one_line_error(result, mentions);
}

const std::string kQuickBench = "bench --config tiny --seq 8 --threads 1 --repeat 2";

// `-o json` is how llama-bench chooses JSON; here it would have written a Markdown table to a file
// called "json". A bare format word is refused with a hint, and no file appears.
TEST(CliOptions, BareFormatWordIsNotAFileName) {
  const fs::path dir = scratch("bare_word");
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
  const fs::path dir = scratch("extension");
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

// Every `tinyenc tokenize`, `pe` and `run` command the README shows runs as written, from the
// repository's folder (the others take minutes, or are run by the order and bench tests).
TEST(CliOptions, ReadmeCommandsRunAsWritten) {
  std::ifstream readme(testing::source_dir() / "README.md");
  ASSERT_TRUE(readme) << "README.md";
  int commands = 0;
  for (std::string line; std::getline(readme, line);) {
    if (line.rfind("$ ", 0) == 0) line = line.substr(2);
    for (const std::string command : {"tokenize ", "pe ", "run "}) {
      const std::string prefix = "build/tinyenc " + command;
      if (line.rfind(prefix, 0) != 0) continue;
      ++commands;
      const ProgramResult result =
          run_in(testing::source_dir(), line.substr(std::string("build/tinyenc ").size()));
      EXPECT_EQ(result.exit_code, 0) << line << ": " << result.err;
    }
  }
  EXPECT_GE(commands, 4);
}

}  // namespace
}  // namespace tinyenc
