// Hostile input to the program's options and texts: every number an option takes is bounded
// (exit 2, one line, before any work), input streams through in batches with bounded memory,
// every line is a record, non-finite results are errors, and JSON stays valid whatever bytes a
// path holds.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
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

using testing::count_lines;
using testing::pretrained_model;
using testing::ProgramResult;
using testing::run_tinyenc;
using testing::shell_quote;

void expect_bad_input(const std::string& arguments, const std::string& mentions,
                      const std::string& input = "") {
  testing::expect_one_line_error(run_tinyenc(arguments, input), mentions, arguments);
}

TEST(CliHostileInput, ThreadCountsAreBounded) {
  const std::string m = " -m " + pretrained_model("order-rope").string();
  // 65536 crashed inside the OpenMP runtime, 33000 failed with its own text, -1 passed.
  for (const char* threads : {"65536", "33000", "-1"}) {
    expect_bad_input("run --threads " + std::string(threads) + m + " 我打你", "--threads");
    expect_bad_input("order --threads " + std::string(threads) + m + " -- 我打你", "--threads");
    expect_bad_input("bench --threads " + std::string(threads) + m + " --seq 8", "--threads");
  }
}

TEST(CliHostileInput, EveryNumericOptionIsBounded) {
  const std::string m = " --threads 1 -m " + pretrained_model("order-rope").string();
  expect_bad_input("run --batch-size 0" + m + " x", "--batch-size");
  expect_bad_input("run --batch-size -3" + m + " x", "--batch-size");
  expect_bad_input("run --batch-size 100000000" + m + " x", "--batch-size");
  const std::string bench = "bench --config tiny --threads 1 --repeat 5";
  expect_bad_input(bench + " --min-time -1", "--min-time");
  expect_bad_input("bench --config tiny --min-time nan", "--min-time");
  expect_bad_input("bench --config tiny --min-time inf", "--min-time");
  expect_bad_input(bench + " --seq 0", "--seq");
  expect_bad_input(bench + " --seq 8,-8", "--seq");
  expect_bad_input(bench + " --seq 100000000", "--seq");
  expect_bad_input(bench + " --batch 0", "--batch");
  expect_bad_input(bench + " --warmup -1", "--warmup");
  expect_bad_input(bench + " --repeat -5", "--repeat");
  // Each is possible alone; together they would need terabytes.
  expect_bad_input(bench + " --pe rope --batch 4096 --seq 65536", "GB");
  expect_bad_input("order --shuffles -1 -p shuffle" + m + " -- 我打你", "--shuffles");
  expect_bad_input("pe --d-model 4 --rows 3 --precision -1", "--precision");
  expect_bad_input("pe --d-model 4 --rows 3 --precision 100000", "--precision");
}

TEST(CliHostileInput, BenchChecksEverythingBeforePrinting) {
  // order-learned has 64 positions: seq 128 must fail before the seq 8 row is printed.
  expect_bad_input("bench --threads 1 --repeat 5 -m " + pretrained_model("order-learned").string() +
                       " --seq 8,128",
                   "--seq 128");
}

TEST(CliHostileInput, BenchIsaErrorsNameTheOption) {
#if defined(__x86_64__)
  const ProgramResult result = run_tinyenc("bench --config tiny --isa neon --repeat 5");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.err.rfind("tinyenc: error: --isa", 0), 0u) << result.err;
  EXPECT_EQ(result.err.find("TINYENC_ISA"), std::string::npos) << result.err;
#endif
  expect_bad_input("bench --config tiny --isa sse9 --repeat 5", "--isa");
}

TEST(CliHostileInput, PeBaseMustBeFinite) {
  for (const char* base : {"inf", "nan", "1", "-5"}) {
    expect_bad_input("pe --d-model 4 --rows 3 --base " + std::string(base),
                     "--base " + std::string(base));
  }
  const ProgramResult inf = run_tinyenc("pe --d-model 4 --rows 3 --base inf");
  EXPECT_NE(inf.err.find("finite"), std::string::npos) << inf.err;
}

// Each input line is one record, an empty line too: record N answers line N.
TEST(CliHostileInput, EmptyLinesKeepTheirPlace) {
  const testing::TempFolder folder("tinyenc_cli_hostile_input");
  const std::filesystem::path input = folder / "texts.txt";
  std::ofstream(input) << "我打你\n\n你打我\n";
  const std::string m = " --threads 1 -m " + pretrained_model("order-rope").string();
  for (const std::string& source : {" -i " + shell_quote(input), std::string(" -")}) {
    const ProgramResult result = run_tinyenc("run --jsonl" + m + source, "我打你\n\n你打我\n");
    ASSERT_EQ(result.exit_code, 0) << result.err;
    std::stringstream lines(result.out);
    std::vector<nlohmann::json> records;
    for (std::string line; std::getline(lines, line);)
      records.push_back(nlohmann::json::parse(line));
    ASSERT_EQ(records.size(), 3u) << result.out;
    EXPECT_EQ(records[0]["text"], "我打你");
    EXPECT_EQ(records[1]["text"], "");
    EXPECT_EQ(records[1]["tokens"], nlohmann::json({"<s>", "</s>"}));
    EXPECT_EQ(records[2]["text"], "你打我");
  }
  // An order experiment has nothing to reorder in an empty line: refused, naming the line.
  expect_bad_input("order" + m + " -i " + shell_quote(input), "line 2");
}

// --pair --truncate cuts the longer text first (Hugging Face's longest_first), so a short second
// sentence survives a long first one.
TEST(CliHostileInput, PairTruncationIsLongestFirst) {
  const std::string m =
      " --threads 1 --json --pair --truncate -m " + pretrained_model("order-rope").string();
  std::string long_text;
  for (int i = 0; i < 40; ++i) long_text += "我打你";  // 120 tokens; the model takes 64
  const ProgramResult result = run_tinyenc("run" + m + " -", long_text + "\t你打我\n");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const nlohmann::json item = nlohmann::json::parse(result.out)["inputs"][0];
  const std::vector<std::string> tokens = item["tokens"];
  ASSERT_EQ(tokens.size(), 64u);
  // The template's special tokens all stay, and the second text's three tokens come last.
  ASSERT_GE(tokens.size(), 5u);
  EXPECT_EQ(tokens.front(), "<s>");
  EXPECT_EQ(std::vector<std::string>(tokens.end() - 4, tokens.end()),
            (std::vector<std::string>{"你", "打", "我", "</s>"}));

  // Two long texts share what the special tokens leave, the first taking the odd one.
  const ProgramResult both = run_tinyenc("run" + m + " -", long_text + "\t" + long_text + "\n");
  ASSERT_EQ(both.exit_code, 0) << both.err;
  const std::vector<std::string> cut = nlohmann::json::parse(both.out)["inputs"][0]["tokens"];
  ASSERT_EQ(cut.size(), 64u);
  size_t specials = 0, first_length = 0;
  for (size_t i = 0; i < cut.size(); ++i) {
    if (cut[i] != "<s>" && cut[i] != "</s>") continue;
    if (++specials == 2) first_length = i - 1;  // between <s> and the first </s>
  }
  EXPECT_GE(specials, 3u);
  EXPECT_EQ(first_length, (64 - specials + 1) / 2);
}

// A 10 MB line once came back as a 10 MB "one-line" error.
TEST(CliHostileInput, ErrorsQuoteAtMostAShortPrefix) {
  std::string huge;
  while (huge.size() < (size_t{2} << 20)) huge += "我打你";
  const ProgramResult result = run_tinyenc(
      "run --threads 1 -m " + pretrained_model("order-rope").string() + " -", huge + "\n");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(count_lines(result.err), 1);
  EXPECT_LT(result.err.size(), 300u) << result.err.substr(0, 300);
  EXPECT_NE(result.err.find("--truncate"), std::string::npos) << result.err.substr(0, 300);
}

// A folder name that is not UTF-8 made every JSON output fail after all the work.
TEST(CliHostileInput, JsonSurvivesANonUtf8ModelPath) {
  const testing::TempFolder folder("tinyenc_cli_hostile_input");
  const std::filesystem::path copy = folder / "mod\xe8le";
  std::filesystem::copy(pretrained_model("order-rope"), copy);
  const std::string m = " -m " + shell_quote(copy);
  const ProgramResult ran = run_tinyenc("run --threads 1 --json" + m + " 我打你");
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  const std::string shown = nlohmann::json::parse(ran.out)["model"];
  EXPECT_NE(shown.find("mod\xef\xbf\xbdle"), std::string::npos) << "the bad byte becomes U+FFFD";
  const ProgramResult jsonl = run_tinyenc("run --threads 1 --jsonl" + m + " 我打你");
  ASSERT_EQ(jsonl.exit_code, 0) << jsonl.err;
  const ProgramResult info = run_tinyenc("info --json" + m);
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NO_THROW(nlohmann::json::parse(info.out));
  const ProgramResult bench = run_tinyenc("bench --threads 1 --repeat 5 --seq 8 -f json" + m);
  ASSERT_EQ(bench.exit_code, 0) << bench.err;
  EXPECT_NO_THROW(nlohmann::json::parse(bench.out));
  const ProgramResult order = run_tinyenc("order --threads 1 --json" + m + " -- 我打你");
  ASSERT_EQ(order.exit_code, 0) << order.err;
  EXPECT_NO_THROW(nlohmann::json::parse(order.out));
}

// Copies order-rope with the named tensors' values all set to `value` (finite, but large enough
// that sums of them overflow float32).
std::filesystem::path model_with_weights(const std::filesystem::path& folder,
                                         const std::vector<std::string>& tensors, float value) {
  const std::filesystem::path copy = folder / "overflow";
  std::filesystem::copy(pretrained_model("order-rope"), copy);
  std::fstream file(copy / "model.safetensors", std::ios::in | std::ios::out | std::ios::binary);
  uint64_t header_size = 0;
  file.read(reinterpret_cast<char*>(&header_size), 8);
  std::string header(header_size, '\0');
  file.read(header.data(), static_cast<std::streamsize>(header_size));
  const nlohmann::json entries = nlohmann::json::parse(header);
  for (const std::string& name : tensors) {
    const std::vector<uint64_t> range = entries.at(name).at("data_offsets");
    EXPECT_EQ(entries.at(name).at("dtype"), "F32");
    file.seekp(static_cast<std::streamoff>(8 + header_size + range[0]));
    for (uint64_t byte = range[0]; byte < range[1]; byte += 4) {
      file.write(reinterpret_cast<const char*>(&value), 4);
    }
  }
  return copy;
}

// Finite weights whose sums overflow: the output is NaN or Inf, which once printed as
// "label 我/I -nan" (exit 0) and made `order` report a perfectly order-blind model.
TEST(CliHostileInput, NonFiniteOutputsAreErrors) {
  const testing::TempFolder folder("tinyenc_cli_hostile_input");
  const std::filesystem::path overflow = model_with_weights(
      folder.path(), {"encoder.layer.1.output.dense.weight", "classifier.weight"}, 3e38f);
  const std::string m = " --threads 1 -m " + shell_quote(overflow);
  expect_bad_input("run" + m + " 我打你", "NaN or Inf");
  // The error names the input whose output overflowed.
  const ProgramResult streamed =
      run_tinyenc("run --jsonl --batch-size 1" + m + " - 我打你", "你打我\n");
  EXPECT_EQ(streamed.exit_code, 2) << streamed.err;
  EXPECT_NE(streamed.err.find(": input 1: "), std::string::npos) << streamed.err;
  expect_bad_input("order" + m + " -- 我打你", "NaN or Inf");
  expect_bad_input("order --compare" + m + " -- 我打你 你打我", "NaN or Inf");
}

// Reads from `fd` until it has `lines` lines, end of file, or `milliseconds` have passed.
std::string read_lines(int fd, int lines, int milliseconds) {
  std::string text;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(milliseconds);
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0 || count_lines(text) >= lines) return text;
    pollfd ready{fd, POLLIN, 0};
    if (::poll(&ready, 1, static_cast<int>(left)) <= 0) return text;
    char buffer[4096];
    const ssize_t count = ::read(fd, buffer, sizeof buffer);
    if (count <= 0) return text;
    text.append(buffer, static_cast<size_t>(count));
  }
}

// `run --jsonl -` answers each line while standard input stays open: a record goes out when its
// batch is done, and a batch is flushed when the input pauses.
TEST(CliHostileInput, JsonLinesStreamWhileInputIsOpen) {
  int to_program[2], from_program[2];
  ASSERT_EQ(::pipe(to_program), 0);
  ASSERT_EQ(::pipe(from_program), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::dup2(to_program[0], STDIN_FILENO);
    ::dup2(from_program[1], STDOUT_FILENO);
    for (int fd : {to_program[0], to_program[1], from_program[0], from_program[1]}) ::close(fd);
    const std::string m = pretrained_model("order-rope").string();
    ::execl(TINYENC_BINARY, TINYENC_BINARY, "run", "--threads", "1", "-m", m.c_str(), "--jsonl",
            "-", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(to_program[0]);
  ::close(from_program[1]);
  const std::string first = "我打你\n你打我\n";
  ASSERT_EQ(::write(to_program[1], first.data(), first.size()), ssize_t(first.size()));
  // The batch (32 by default) is far from full: only the pause may send these two out.
  const std::string early = read_lines(from_program[0], 2, 10000);
  EXPECT_EQ(count_lines(early), 2) << early;
  const std::string last = "小明追小红\n";
  ASSERT_EQ(::write(to_program[1], last.data(), last.size()), ssize_t(last.size()));
  ::close(to_program[1]);
  const std::string rest = read_lines(from_program[0], 2, 10000);
  EXPECT_EQ(count_lines(rest), 1) << rest;
  ::close(from_program[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

// Peak resident memory, in KiB, of a shell command run in a child of a child (so that only its
// own processes count).
long peak_rss_kib(const std::string& command) {
  int channel[2];
  if (::pipe(channel) != 0) return -1;
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(channel[0]);
    long peak = -1;
    if (std::system(command.c_str()) == 0) {
      rusage usage{};
      ::getrusage(RUSAGE_CHILDREN, &usage);
      peak = usage.ru_maxrss;
    }
    [[maybe_unused]] const ssize_t written = ::write(channel[1], &peak, sizeof peak);
    ::_exit(0);
  }
  ::close(channel[1]);
  long peak = -1;
  if (::read(channel[0], &peak, sizeof peak) != sizeof peak) peak = -1;
  ::close(channel[0]);
  ::waitpid(child, nullptr, 0);
  return peak;
}

// Memory does not grow with the input: ten times the lines, about the same peak.
TEST(CliHostileInput, MemoryIsBoundedOnLongInput) {
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer keeps freed memory in quarantine (256 MB) before reusing it, so the resident
  // size grows with the number of allocations whatever the program holds.
  GTEST_SKIP() << "peak memory is not the program's own under AddressSanitizer";
#endif
  const std::string program = std::string(TINYENC_BINARY) + " run --threads 1 -m " +
                              pretrained_model("order-rope").string() + " - >/dev/null";
  const long small = peak_rss_kib("yes 小明追小红 | head -n 20000 | " + program);
  const long large = peak_rss_kib("yes 小明追小红 | head -n 200000 | " + program);
  ASSERT_GT(small, 0);
  ASSERT_GT(large, 0);
  // Holding every text and its tokens costs ~60 MB at 200,000 lines; a bounded reader ~0.
  EXPECT_LT(static_cast<double>(large), 1.15 * static_cast<double>(small))
      << small << " KiB for 20,000 lines, " << large << " KiB for 200,000";
}

TEST(CliHostileInput, SymlinkLoopsAreNamedInTheDocumentedForm) {
  const testing::TempFolder folder("tinyenc_cli_hostile_input");
  const std::filesystem::path loop = folder / "loop";
  std::filesystem::create_symlink(loop, loop);
  for (const char* command : {"run --threads 1 -m % 我打你", "info -m %", "order -m % -- 我打你"}) {
    std::string arguments = command;
    arguments.replace(arguments.find('%'), 1, shell_quote(loop));
    const ProgramResult result = run_tinyenc(arguments);
    EXPECT_EQ(result.exit_code, 2) << command << result.err;
    EXPECT_EQ(result.err.rfind("tinyenc: error: " + loop.string(), 0), 0u) << result.err;
    EXPECT_EQ(result.err.find("filesystem error"), std::string::npos) << result.err;
  }
}

}  // namespace
}  // namespace tinyenc
