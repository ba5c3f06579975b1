// `tinyenc convert` writes its output folder and nothing else: each entry of the input under its
// own name (symbolic links followed, as `cp -rL` follows them, wherever they point), no path
// outside the output, no staging folder left after an interrupt or a kill, and the output path
// as a user spells it (a trailing slash, a missing parent) named in errors, not the temporary.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/cli.h"
#include "tests/support/run_program.h"
#include "tests/support/temp_folder.h"
#include "tests/support/test_data.h"

extern char** environ;

namespace tinyenc {
namespace {

namespace fs = std::filesystem;
using testing::count_lines;
using testing::pretrained_model;
using testing::ProgramResult;
using testing::run_tinyenc;
using testing::shell_quote;

// Every path under `dir`, relative to it, links not followed.
std::set<std::string> listing(const fs::path& dir) {
  std::set<std::string> names;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(dir)) {
    names.insert(entry.path().lexically_relative(dir).string());
  }
  return names;
}

std::string convert(const fs::path& input, const std::string& output,
                    const std::string& dtype = "int8") {
  return "convert -m " + shell_quote(input) + " --dtype " + dtype + " -o " + output;
}

void expect_refused(const ProgramResult& result, const std::string& mentions) {
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_EQ(count_lines(result.err), 1) << result.err;
  EXPECT_NE(result.err.find(mentions), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("tinyenc-tmp"), std::string::npos) << result.err;
}

// A folder laid out as Hugging Face's cache lays it out: snapshot entries are relative links into
// a blobs folder beside them. Also an absolute link, a link to a file outside that must only be
// read, a link to a folder, and a dangling link.
TEST(CliConvert, LinkedEntriesAreCopiedUnderTheirOwnNames) {
  const testing::TempFolder temp("tinyenc_cli_convert");
  const fs::path& root = temp.path();
  const fs::path shipped = pretrained_model("order-rope");
  fs::create_directories(root / "cache" / "blobs");
  fs::create_directories(root / "cache" / "snap");
  fs::create_directories(root / "elsewhere" / "folder");
  for (const char* name : {"config.json", "model.safetensors", "tokenizer.model"}) {
    fs::copy_file(shipped / name, root / "cache" / "blobs" / (std::string(name) + ".blob"));
    fs::create_symlink(fs::path("..") / "blobs" / (std::string(name) + ".blob"),
                       root / "cache" / "snap" / name);
  }
  std::ofstream(root / "elsewhere" / "passwd") << "root:x:0:0\n";
  std::ofstream(root / "elsewhere" / "folder" / "inside.txt") << "inside\n";
  fs::create_symlink(root / "elsewhere" / "passwd", root / "cache" / "snap" / "passwd_link");
  fs::create_symlink("../../elsewhere/folder", root / "cache" / "snap" / "linked_folder");
  fs::create_symlink("no-such-file", root / "cache" / "snap" / "dangling");
  fs::create_directories(root / "o");
  const std::set<std::string> before = listing(root);

  const ProgramResult result =
      run_tinyenc(convert(root / "cache" / "snap", shell_quote(root / "o" / "cvhf")));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  // The dangling link is named, not silently dropped.
  EXPECT_NE(result.err.find("dangling"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("not copied"), std::string::npos) << result.err;

  const fs::path out = root / "o" / "cvhf";
  std::set<std::string> expected = {"config.json", "model.safetensors", "tokenizer.model",
                                    "passwd_link", "linked_folder",     "linked_folder/inside.txt"};
  EXPECT_EQ(listing(out), expected);
  for (const std::string& name : expected) EXPECT_FALSE(fs::is_symlink(out / name)) << name;
  EXPECT_EQ(testing::read_text(out / "passwd_link"), "root:x:0:0\n");
  EXPECT_EQ(testing::read_text(out / "config.json"), testing::read_text(shipped / "config.json"));
  // Nothing appeared outside the output folder.
  std::set<std::string> after = listing(root);
  for (const std::string& name : expected) after.erase("o/cvhf/" + name);
  after.erase("o/cvhf");
  EXPECT_EQ(after, before);
  const ProgramResult run = run_tinyenc("run --threads 1 -m " + shell_quote(out) + " 我打你");
  EXPECT_EQ(run.exit_code, 0) << run.err;
}

TEST(CliConvert, OutputSpellings) {
  const testing::TempFolder temp("tinyenc_cli_convert");
  const fs::path& root = temp.path();
  const fs::path model = pretrained_model("order-rope");
  // A trailing slash, as shell completion writes it.
  const ProgramResult slash = run_tinyenc(convert(model, shell_quote(root) + "/new/"));
  EXPECT_EQ(slash.exit_code, 0) << slash.err;
  EXPECT_TRUE(fs::exists(root / "new" / "model.safetensors"));
  // A missing parent is named, not the temporary inside it.
  expect_refused(run_tinyenc(convert(model, shell_quote(root / "missing" / "new"))),
                 (root / "missing").string());
  // Links as the output: refused before converting, not after.
  fs::create_symlink(root / "nowhere", root / "dangling");
  fs::create_directories(root / "empty");
  fs::create_symlink(root / "empty", root / "to_empty");
  expect_refused(run_tinyenc(convert(model, shell_quote(root / "dangling"))), "symbolic link");
  expect_refused(run_tinyenc(convert(model, shell_quote(root / "to_empty"))), "symbolic link");
  EXPECT_TRUE(fs::is_empty(root / "empty"));
  // An unwritable parent names the folder asked for.
  if (::geteuid() != 0) {
    fs::create_directories(root / "locked");
    fs::permissions(root / "locked", fs::perms::owner_read | fs::perms::owner_exec);
    expect_refused(run_tinyenc(convert(model, shell_quote(root / "locked" / "new"))),
                   (root / "locked" / "new").string());
    fs::permissions(root / "locked", fs::perms::owner_all);
  }
}

// A checkpoint stored in BF16, converted to bf16, grows by a few bytes of metadata: it says
// "larger", not "0.99x smaller".
TEST(CliConvert, LargerOutputIsCalledLarger) {
  const testing::TempFolder temp("tinyenc_cli_convert");
  const fs::path& root = temp.path();
  const fs::path shipped = pretrained_model("order-rope");
  fs::create_directories(root / "bf16_checkpoint");
  for (const char* name : {"config.json", "tokenizer.model"}) {
    fs::copy_file(shipped / name, root / "bf16_checkpoint" / name);
  }
  // The shipped F32 weights rewritten as BF16 (the upper half of each float32).
  std::ifstream in(shipped / "model.safetensors", std::ios::binary);
  uint64_t header_size = 0;
  in.read(reinterpret_cast<char*>(&header_size), 8);
  std::string header_text(header_size, '\0');
  in.read(header_text.data(), static_cast<std::streamsize>(header_size));
  const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  nlohmann::json header = nlohmann::json::parse(header_text);
  std::string out_data;
  for (auto& [name, entry] : header.items()) {
    if (name == "__metadata__") continue;
    const std::vector<uint64_t> range = entry["data_offsets"];
    const uint64_t begin = out_data.size();
    if (entry["dtype"] == "F32") {
      for (uint64_t byte = range[0]; byte < range[1]; byte += 4) out_data.append(data, byte + 2, 2);
      entry["dtype"] = "BF16";
    } else {
      out_data.append(data, range[0], range[1] - range[0]);
    }
    entry["data_offsets"] = {begin, out_data.size()};
  }
  std::string new_header = header.dump();
  new_header.append((8 - new_header.size() % 8) % 8, ' ');
  {
    std::ofstream out(root / "bf16_checkpoint" / "model.safetensors", std::ios::binary);
    const uint64_t size = new_header.size();
    out.write(reinterpret_cast<const char*>(&size), 8);
    out << new_header << out_data;
  }
  const ProgramResult result =
      run_tinyenc(convert(root / "bf16_checkpoint", shell_quote(root / "out"), "bf16"));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.err.find("x larger)"), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("0.99x"), std::string::npos) << result.err;
}

std::vector<std::string> staging_folders(const fs::path& dir) {
  std::vector<std::string> names;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.find("tinyenc-tmp") != std::string::npos) names.push_back(name);
  }
  return names;
}

// A convert interrupted while it copies a large file leaves no staging folder behind.
TEST(CliConvert, InterruptedConvertLeavesNoStagingFolder) {
  const testing::TempFolder temp("tinyenc_cli_convert");
  const fs::path& root = temp.path();
  const fs::path shipped = pretrained_model("order-rope");
  fs::create_directories(root / "input");
  for (const char* name : {"config.json", "model.safetensors", "tokenizer.model"}) {
    fs::copy_file(shipped / name, root / "input" / name);
  }
  // A large file (sparse: quick to make, slow enough to copy to be caught half-way).
  std::ofstream(root / "input" / "extra.bin").close();
  fs::resize_file(root / "input" / "extra.bin", std::uintmax_t{4} << 30);
  fs::create_directories(root / "o");
  for (int signal_number : {SIGTERM, SIGINT, SIGHUP}) {
    const std::string output = (root / "o" / "model").string();
    const std::string input = (root / "input").string();
    std::vector<std::string> arguments = {TINYENC_BINARY, "convert", "-m", input,
                                          "--dtype",      "int8",    "-o", output};
    std::vector<char*> argv;
    for (std::string& argument : arguments) argv.push_back(argument.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    pid_t pid = -1;
    ASSERT_EQ(::posix_spawn(&pid, TINYENC_BINARY, &actions, nullptr, argv.data(), environ), 0);
    posix_spawn_file_actions_destroy(&actions);
    // Waits until the copy is under way: the staging folder holds part of extra.bin.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    bool copying = false;
    while (!copying && std::chrono::steady_clock::now() < deadline) {
      for (const std::string& name : staging_folders(root / "o")) {
        std::error_code error;
        copying = copying || fs::file_size(root / "o" / name / "extra.bin", error) > 0;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    ASSERT_TRUE(copying) << "the copy was never seen under way";
    ::kill(pid, signal_number);
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == signal_number) << status;
    EXPECT_EQ(staging_folders(root / "o"), std::vector<std::string>{}) << signal_number;
    EXPECT_FALSE(fs::exists(output));
  }
}

// A SIGKILL cannot be caught: the next convert to the same target removes the leftover of a
// process that no longer exists, and leaves a living process's alone.
TEST(CliConvert, DeadProcessLeftoverIsRemovedByTheNextConvert) {
  const testing::TempFolder temp("tinyenc_cli_convert");
  const fs::path& root = temp.path();
  // A pid that is surely dead: a child that has exited and been reaped.
  const pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ::waitpid(dead, nullptr, 0);
  const fs::path leftover = root / (".model.tinyenc-tmp." + std::to_string(dead));
  const fs::path living = root / (".model.tinyenc-tmp." + std::to_string(::getpid()));
  fs::create_directories(leftover / "sub");
  std::ofstream(leftover / "sub" / "model.safetensors") << "partial";
  fs::create_directories(living);
  const ProgramResult result =
      run_tinyenc(convert(pretrained_model("order-rope"), shell_quote(root / "model")));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_FALSE(fs::exists(leftover));
  EXPECT_TRUE(fs::exists(living));
}

}  // namespace
}  // namespace tinyenc
