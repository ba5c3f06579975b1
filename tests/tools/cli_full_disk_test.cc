// A full disk loses nothing: every command that writes to standard output fails with one line
// when /dev/full takes its output, and a file output that cannot be written completely is never
// renamed over the target. The tmpfs cases need a private mount namespace (`unshare -rm`) and
// are skipped, saying why, where the machine does not allow one.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/support/run_program.h"
#include "tests/support/temp_folder.h"
#include "tests/support/test_data.h"

namespace tinyenc {
namespace {

namespace fs = std::filesystem;
using testing::pretrained_model;
using testing::ProgramResult;
using testing::read_text;
using testing::shell_quote;

std::string model() { return shell_quote(pretrained_model("order-rope")); }

// `tinyenc arguments > /dev/full`, standard error kept.
ProgramResult into_dev_full(const std::string& arguments) {
  return testing::run_program(
      "sh", "-c " + shell_quote(std::string(TINYENC_BINARY) + " " + arguments + " > /dev/full"));
}

void expect_failed_on(const ProgramResult& result, const std::string& name,
                      const std::string& what) {
  EXPECT_NE(result.exit_code, 0) << what;
  EXPECT_NE(result.err.find("tinyenc: error: " + name + ": No space left on device"),
            std::string::npos)
      << what << ": " << result.err;
  EXPECT_EQ(testing::count_lines(result.err), 1) << what << ": " << result.err;
}

// A corpus of two lines in `folder`.
fs::path corpus_file(const fs::path& folder) {
  const fs::path path = folder / "corpus.txt";
  std::ofstream(path) << "我打你\n你打我\n";
  return path;
}

TEST(FullDiskTest, StandardOutputOnDevFullFailsForEveryCommand) {
  const testing::TempFolder temp("tinyenc_full_disk");
  const fs::path corpus_path = corpus_file(temp.path());
  const std::string corpus = shell_quote(corpus_path);
  const std::vector<std::string> commands = {
      "run --threads 1 -m " + model() + " 我打你",
      "run --threads 1 --json -m " + model() + " 我打你",
      "run --threads 1 --jsonl -m " + model() + " 我打你",
      "run --threads 1 -m " + model() + " -i " + corpus,
      "run --threads 1 --jsonl -m " + model() + " -i " + corpus,
      "tokenize -m " + model() + " 我打你",
      "info",
      "info -m " + model(),
      "pe --kind sinusoidal --d-model 4 --rows 3",
      "pe --kind sinusoidal --d-model 4 --rows 3 --json",
      "order --threads 1 -m " + model() + " 我打你",
      "bench --config tiny --seq 8 --repeat 1 --warmup 0",
      "bench --config tiny --seq 8 --repeat 1 --warmup 0 --csv",
      "bench --config tiny --seq 8 --repeat 1 --warmup 0 --jsonl",
      "bench --threads 1 --corpus " + corpus + " -m " + model(),
  };
  for (const std::string& command : commands) {
    expect_failed_on(into_dev_full(command), "standard output", command);
  }
}

TEST(FullDiskTest, OutputFileOnDevFullFails) {
  for (const std::string format : {"", " --json", " --jsonl"}) {
    const std::string command =
        "run --threads 1" + format + " -m " + model() + " -o /dev/full 我打你";
    expect_failed_on(testing::run_program(TINYENC_BINARY, command), "/dev/full", command);
  }
  const std::string bench = "bench --config tiny --seq 8 --repeat 1 --warmup 0 -o /dev/full";
  expect_failed_on(testing::run_program(TINYENC_BINARY, bench), "/dev/full", bench);
}

// Runs `command` (a shell command line where $T is a 64 KiB tmpfs filled to the last byte and
// $T/<target> holds "keep") in a private mount namespace; returns its result and the target's
// bytes afterwards in `kept`. The mount point and the copy of the target are made in `scratch`.
// Skips when no such namespace may be made here.
bool on_full_tmpfs(const fs::path& scratch, const std::string& target, const std::string& command,
                   ProgramResult& result, std::string& kept) {
  const fs::path folder = scratch / "mount";
  fs::create_directories(folder);
  const fs::path kept_copy = scratch / "kept";
  fs::remove(kept_copy);
  // `cat` copies the target out before the namespace (and its tmpfs) goes away. The filler
  // writes until the file system refuses, so not one byte is left.
  const std::string script =
      "T=" + shell_quote(folder) + "; mount -t tmpfs -o size=64k tinyenc-full \"$T\" || exit 97; " +
      "printf keep > \"$T\"/" + target + " && (cat /dev/zero > \"$T\"/filler 2>/dev/null; true); " +
      "B=" + shell_quote(TINYENC_BINARY) + "; " + command + "; code=$?; cat \"$T\"/" + target +
      " > " + shell_quote(kept_copy) + "; ls -a \"$T\" >&2; exit $code";
  result = testing::run_program("unshare", "-rm sh -c " + shell_quote(script));
  if (result.exit_code == 97 || result.err.find("unshare") != std::string::npos) return false;
  kept = read_text(kept_copy);
  fs::remove(kept_copy);
  fs::remove(folder);  // the mount point, empty outside the namespace
  return true;
}

TEST(FullDiskTest, StreamedOutputOnFullTmpfsKeepsTheOldFile) {
  const testing::TempFolder temp("tinyenc_full_disk");
  const fs::path corpus_path = corpus_file(temp.path());
  const std::string corpus = shell_quote(corpus_path);
  struct Case {
    std::string target;
    std::string arguments;
  };
  const std::vector<Case> cases = {
      {"r.txt", "run --threads 1 -m " + model() + " -o \"$T\"/r.txt 我打你"},
      {"r.jsonl", "run --threads 1 -m " + model() + " -o \"$T\"/r.jsonl 我打你"},
      {"r.out", "run --threads 1 --jsonl -m " + model() + " -o \"$T\"/r.out -i " + corpus},
      {"r.json", "run --threads 1 --json -m " + model() + " -o \"$T\"/r.json 我打你"},
      {"b.md", "bench --config tiny --seq 8 --repeat 1 --warmup 0 -o \"$T\"/b.md"},
      {"b.jsonl", "bench --config tiny --seq 8 --repeat 1 --warmup 0 -o \"$T\"/b.jsonl"},
      {"b.csv", "bench --config tiny --seq 8 --repeat 1 --warmup 0 -o \"$T\"/b.csv"},
  };
  for (const Case& c : cases) {
    ProgramResult result;
    std::string kept;
    if (!on_full_tmpfs(temp.path(), c.target, "\"$B\" " + c.arguments, result, kept)) {
      GTEST_SKIP() << "no private mount namespace here (unshare -rm refused): " << result.err;
    }
    EXPECT_NE(result.exit_code, 0) << c.arguments << ": " << result.err;
    EXPECT_NE(result.err.find("tinyenc: error: "), std::string::npos) << result.err;
    EXPECT_NE(result.err.find(c.target), std::string::npos) << result.err;
    EXPECT_EQ(kept, "keep") << c.arguments;
    // Only the target and the filler remain: no temporary left behind.
    EXPECT_EQ(result.err.find("tinyenc-tmp"), std::string::npos) << result.err;
  }
}

// A convert onto a full disk fails naming what it writes, not the input it reads, and leaves no
// staging folder.
TEST(FullDiskTest, ConvertOnFullTmpfsNamesTheOutput) {
  const testing::TempFolder temp("tinyenc_full_disk");
  ProgramResult result;
  std::string kept;
  if (!on_full_tmpfs(temp.path(), "keep.txt",
                     "\"$B\" convert -m " + model() + " --dtype int8 -o \"$T\"/cv", result, kept)) {
    GTEST_SKIP() << "no private mount namespace here (unshare -rm refused): " << result.err;
  }
  EXPECT_NE(result.exit_code, 0) << result.err;
  EXPECT_NE(result.err.find("tinyenc: error: "), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("/cv/"), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("order-rope/"), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("tinyenc-tmp"), std::string::npos) << result.err;
  EXPECT_EQ(kept, "keep");
}

}  // namespace
}  // namespace tinyenc
