// Where `tinyenc` puts its results (-o; --plot goes through the same code): whatever the path
// named before survives as the shell's `>` would leave it (links, devices, FIFOs, sockets,
// modes, hard links, permissions), errors are one line with exit 2, and no temporary outlives
// the process, whether it fails, is interrupted, or was killed outright the time before.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/run_program.h"
#include "tests/support/temp_folder.h"
#include "tests/support/test_data.h"

namespace tinyenc {
namespace {

namespace fs = std::filesystem;
using testing::count_lines;
using testing::pretrained_model;
using testing::ProgramResult;
using testing::read_text;
using testing::shell_quote;

// `tinyenc run` on one text into `output`, through the shell (`program` may put setpriv first).
ProgramResult run_into(const std::string& output, const std::string& environment = "",
                       const std::string& program = TINYENC_BINARY) {
  return testing::run_program(program,
                              "run --threads 1 --json -m " +
                                  pretrained_model("order-rope").string() + " -o " + output +
                                  " 我打你",
                              "", environment);
}

// The one result run_into writes.
bool is_result(const std::string& text) {
  const nlohmann::json document = nlohmann::json::parse(text, nullptr, false);
  return !document.is_discarded() && document.contains("inputs") &&
         document["inputs"].size() == 1 && document["inputs"][0]["text"] == "我打你";
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

struct stat status_of(const fs::path& path) {
  struct stat status {};
  EXPECT_EQ(::lstat(path.c_str(), &status), 0) << path;
  return status;
}

// Names in `folder` that look like a temporary of ours or of the old scheme.
std::vector<std::string> temporaries_in(const fs::path& folder) {
  std::vector<std::string> found;
  for (const auto& entry : fs::directory_iterator(folder)) {
    const std::string name = entry.path().filename().string();
    if (name.find("tinyenc-tmp") != std::string::npos || name.find(".tmp.") != std::string::npos)
      found.push_back(name);
  }
  return found;
}

void expect_one_line_error(const ProgramResult& result, const std::string& mentions) {
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_EQ(count_lines(result.err), 1) << result.err;
  EXPECT_EQ(result.err.rfind("tinyenc: error: ", 0), 0u) << result.err;
  EXPECT_NE(result.err.find(mentions), std::string::npos) << result.err;
}

// A child started directly (not through the shell), so that the test knows its pid and can
// send it signals. SIGINT, SIGTERM and SIGHUP get their default action back: a shell starting
// this test in the background may have made the test ignore SIGINT, and the child would inherit
// that.
pid_t start(const std::vector<std::string>& arguments, const fs::path& input, int output) {
  std::vector<char*> argv;
  std::string binary = TINYENC_BINARY;
  argv.push_back(binary.data());
  std::vector<std::string> copies = arguments;
  for (std::string& argument : copies) argv.push_back(argument.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, input.c_str(), O_RDONLY, 0);
  if (output >= 0) {
    posix_spawn_file_actions_adddup2(&actions, output, 1);
  } else {
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  }
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t defaults;
  sigemptyset(&defaults);
  for (int signal_number : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) sigaddset(&defaults, signal_number);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  pid_t pid = -1;
  const int error = posix_spawn(&pid, binary.c_str(), &actions, &attributes, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  EXPECT_EQ(error, 0) << std::strerror(error);
  return error == 0 ? pid : -1;
}

int wait_for(pid_t pid) {
  int status = 0;
  EXPECT_EQ(::waitpid(pid, &status, 0), pid);
  return status;
}

// All a descriptor gives until end of file, or until nothing comes for 20 seconds.
std::string read_all(int descriptor) {
  std::string text;
  char buffer[4096];
  pollfd wanted{descriptor, POLLIN, 0};
  while (::poll(&wanted, 1, 20000) > 0) {
    const ssize_t got = ::read(descriptor, buffer, sizeof buffer);
    if (got <= 0) break;
    text.append(buffer, static_cast<size_t>(got));
  }
  return text;
}

// A pid no process has: a child's, once it has been waited for.
pid_t dead_pid() {
  const pid_t pid = start({"--version"}, "/dev/null", -1);
  wait_for(pid);
  return pid;
}

class CliOutput : public ::testing::Test {
 protected:
  testing::TempFolder temp_{"tinyenc_cli_output"};
  const fs::path& folder_ = temp_.path();
};

TEST_F(CliOutput, SymbolicLinksAreFollowedNotReplaced) {
  fs::create_directories(folder_ / "real");
  write_text(folder_ / "real" / "result.json", "old");
  fs::create_symlink("real/result.json", folder_ / "link");
  fs::create_symlink("link", folder_ / "chain");  // two hops, both relative
  const ProgramResult result = run_into(shell_quote(folder_ / "chain"));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(fs::is_symlink(folder_ / "chain"));
  EXPECT_TRUE(fs::is_symlink(folder_ / "link"));
  EXPECT_EQ(fs::read_symlink(folder_ / "link"), "real/result.json");
  EXPECT_TRUE(is_result(read_text(folder_ / "real" / "result.json")));
  EXPECT_EQ(temporaries_in(folder_), std::vector<std::string>{});
  EXPECT_EQ(temporaries_in(folder_ / "real"), std::vector<std::string>{});

  // A link to nothing yet: the file it names is created, as with the shell's `>`.
  fs::create_symlink(folder_ / "real" / "new.json", folder_ / "dangling");
  const ProgramResult created = run_into(shell_quote(folder_ / "dangling"));
  ASSERT_EQ(created.exit_code, 0) << created.err;
  EXPECT_TRUE(fs::is_symlink(folder_ / "dangling"));
  EXPECT_TRUE(is_result(read_text(folder_ / "real" / "new.json")));
  EXPECT_EQ(temporaries_in(folder_ / "real"), std::vector<std::string>{});
}

TEST_F(CliOutput, CharacterDeviceIsWrittenInPlace) {
  // A null device of our own, so that a regression replaces this one and not the system's.
  const fs::path device = folder_ / "null";
  if (::mknod(device.c_str(), S_IFCHR | 0666, ::makedev(1, 3)) != 0) {
    GTEST_SKIP() << "cannot create a character device here (" << std::strerror(errno)
                 << "); /dev/null is covered by SystemDevicesAreWrittenInPlace";
  }
  const ProgramResult result = run_into(shell_quote(device));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const struct stat status = status_of(device);
  EXPECT_TRUE(S_ISCHR(status.st_mode));
  EXPECT_EQ(status.st_rdev, ::makedev(1, 3));
  EXPECT_EQ(temporaries_in(folder_), std::vector<std::string>{});
}

TEST_F(CliOutput, SystemDevicesAreWrittenInPlace) {
  for (const char* path : {"/dev/null", "/dev/stdout"}) {
    const ProgramResult result = run_into(path);
    ASSERT_EQ(result.exit_code, 0) << path << ": " << result.err;
    if (std::string(path) == "/dev/stdout") {
      EXPECT_TRUE(is_result(result.out)) << result.out;
    }
  }
  EXPECT_TRUE(S_ISCHR(status_of("/dev/null").st_mode));
  EXPECT_TRUE(S_ISLNK(status_of("/dev/stdout").st_mode));
  EXPECT_EQ(temporaries_in("/dev"), std::vector<std::string>{});
}

TEST_F(CliOutput, StandardOutputPipeByItsProcName) {
  // /dev/stdout is a link to /proc/self/fd/1, which names "pipe:[N]", no file: the kernel's
  // open follows it, following the link by hand would not.
  int pipe_ends[2];
  ASSERT_EQ(::pipe(pipe_ends), 0);
  const pid_t pid =
      start({"run", "--threads", "1", "--json", "-m", pretrained_model("order-rope").string(), "-o",
             "/proc/self/fd/1", "我打你"},
            "/dev/null", pipe_ends[1]);
  ::close(pipe_ends[1]);
  const std::string out = read_all(pipe_ends[0]);
  ::close(pipe_ends[0]);
  const int status = wait_for(pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_TRUE(is_result(out)) << out;
}

TEST_F(CliOutput, FifoIsWrittenInPlace) {
  const fs::path fifo = folder_ / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Opened for reading and writing, so that neither side waits for the other; the result is
  // far smaller than the pipe's buffer.
  const int reader = ::open(fifo.c_str(), O_RDWR | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  const ProgramResult result = run_into(shell_quote(fifo));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  std::string received;
  char buffer[4096];
  for (ssize_t got; (got = ::read(reader, buffer, sizeof buffer)) > 0;)
    received.append(buffer, static_cast<size_t>(got));
  ::close(reader);
  EXPECT_TRUE(is_result(received)) << received;
  EXPECT_TRUE(S_ISFIFO(status_of(fifo).st_mode));
  EXPECT_EQ(temporaries_in(folder_), std::vector<std::string>{});
}

TEST_F(CliOutput, SocketIsWrittenInPlace) {
  const fs::path socket_path = folder_ / "socket";
  const int listener = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(listener, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  ASSERT_LT(socket_path.string().size(), sizeof address.sun_path);
  std::strcpy(address.sun_path, socket_path.c_str());
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(::listen(listener, 1), 0);
  const pid_t pid =
      start({"run", "--threads", "1", "--json", "-m", pretrained_model("order-rope").string(), "-o",
             socket_path.string(), "我打你"},
            "/dev/null", -1);
  pollfd waiting{listener, POLLIN, 0};
  std::string received;
  if (::poll(&waiting, 1, 20000) == 1) {
    const int connection = ::accept(listener, nullptr, nullptr);
    received = read_all(connection);
    ::close(connection);
  }
  const int status = wait_for(pid);
  ::close(listener);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_TRUE(is_result(received)) << received;
  EXPECT_TRUE(S_ISSOCK(status_of(socket_path).st_mode));
  EXPECT_EQ(temporaries_in(folder_), std::vector<std::string>{});

  // Nobody listening any more: refused, and the socket stays.
  const ProgramResult refused = run_into(shell_quote(socket_path));
  expect_one_line_error(refused, socket_path.string());
  EXPECT_TRUE(S_ISSOCK(status_of(socket_path).st_mode));
}

TEST_F(CliOutput, ExistingModeIsKeptAndNewFilesFollowTheUmask) {
  for (const fs::perms mode : {fs::perms(0600), fs::perms(0640), fs::perms(0755)}) {
    const fs::path file = folder_ / "result.json";
    write_text(file, "old");
    fs::permissions(file, mode);
    const ProgramResult result = run_into(shell_quote(file));
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_TRUE(is_result(read_text(file)));
    EXPECT_EQ(status_of(file).st_mode & 07777, static_cast<mode_t>(mode));
    fs::remove(file);
  }
  const ProgramResult created = run_into(shell_quote(folder_ / "new.json"), "umask 027;");
  ASSERT_EQ(created.exit_code, 0) << created.err;
  EXPECT_EQ(status_of(folder_ / "new.json").st_mode & 07777, 0640u);
  EXPECT_EQ(temporaries_in(folder_), std::vector<std::string>{});
}

TEST_F(CliOutput, HardLinksAreKept) {
  const fs::path file = folder_ / "result.json";
  const fs::path other_name = folder_ / "same.json";
  write_text(file, "old");
  fs::permissions(file, fs::perms(0640));
  fs::create_hard_link(file, other_name);
  const ino_t inode = status_of(file).st_ino;

  // A failure before the end leaves the file alone (the second text is invalid UTF-8).
  const ProgramResult failed =
      testing::run_program(TINYENC_BINARY,
                           "run --threads 1 --json -m " + pretrained_model("order-rope").string() +
                               " -o " + shell_quote(file) + " -",
                           "我打你\n\xff\xfe\n");
  EXPECT_EQ(failed.exit_code, 2) << failed.err;
  EXPECT_EQ(read_text(other_name), "old");

  const ProgramResult result = run_into(shell_quote(file));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const struct stat status = status_of(file);
  EXPECT_EQ(status.st_ino, inode);
  EXPECT_EQ(status.st_nlink, 2u);
  EXPECT_EQ(status.st_mode & 07777, 0640u);
  EXPECT_TRUE(is_result(read_text(other_name)));
  EXPECT_EQ(read_text(file), read_text(other_name));
  EXPECT_EQ(temporaries_in(folder_), std::vector<std::string>{});
}

TEST_F(CliOutput, RefusesWhatTheUserMayNotWrite) {
  // Root may write anything, so the refusal is seen as an ordinary user.
  std::string program = TINYENC_BINARY;
  if (::geteuid() == 0) {
    if (std::system("setpriv --version >/dev/null 2>&1") != 0)
      GTEST_SKIP() << "running as root and setpriv (util-linux) is missing: cannot test as a user";
    program = "setpriv --reuid=65534 --regid=65534 --clear-groups " + program;
  }
  // The folder lets anyone replace its files by rename: only the file's own mode may refuse.
  fs::permissions(folder_, fs::perms(0777));
  const fs::path file = folder_ / "read-only.json";
  write_text(file, "keep me");
  fs::permissions(file, fs::perms(0444));
  expect_one_line_error(run_into(shell_quote(file), "", program), file.string());
  EXPECT_EQ(read_text(file), "keep me");
  EXPECT_TRUE(S_ISREG(status_of(file).st_mode));
  EXPECT_EQ(status_of(file).st_mode & 07777, 0444u);

  // A folder the user cannot write: no temporary can go there, for a new file or an old one.
  const fs::path closed = folder_ / "closed";
  fs::create_directories(closed);
  write_text(closed / "open.json", "keep me");
  fs::permissions(closed / "open.json", fs::perms(0666));
  fs::permissions(closed, fs::perms(0555));
  for (const fs::path& target : {closed / "new.json", closed / "open.json"}) {
    const ProgramResult result = run_into(shell_quote(target), "", program);
    expect_one_line_error(result, target.string());
    EXPECT_NE(result.err.find("closed"), std::string::npos) << result.err;
  }
  EXPECT_EQ(read_text(closed / "open.json"), "keep me");
  EXPECT_FALSE(fs::exists(closed / "new.json"));
}

TEST_F(CliOutput, DirectoryIsRefusedByName) {
  const fs::path directory = folder_ / "out.json";
  fs::create_directories(directory);
  const ProgramResult result = run_into(shell_quote(directory));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.err, "tinyenc: error: " + directory.string() + ": is a directory\n");
  EXPECT_TRUE(fs::is_directory(directory));
  EXPECT_TRUE(fs::is_empty(directory));
  EXPECT_EQ(temporaries_in(folder_), std::vector<std::string>{});
}

TEST_F(CliOutput, InterruptRemovesTheTemporary) {
  const fs::path input = folder_ / "input.txt";
  {
    std::ofstream lines(input);
    for (int i = 0; i < 20000; ++i) lines << "我打你\n";
  }
  const fs::path target = folder_ / "k.jsonl";
  for (int signal_number : {SIGTERM, SIGINT, SIGHUP}) {
    SCOPED_TRACE(strsignal(signal_number));
    write_text(target, "old\n");
    const pid_t pid = start({"run", "--threads", "1", "--jsonl", "-m",
                             pretrained_model("order-rope").string(), "-o", target.string(), "-"},
                            input, -1);
    ASSERT_GT(pid, 0);
    const fs::path temporary = folder_ / (".k.jsonl.tinyenc-tmp." + std::to_string(pid));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!fs::exists(temporary) && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    const bool appeared = fs::exists(temporary);
    ::kill(pid, signal_number);
    const int status = wait_for(pid);
    ASSERT_TRUE(appeared) << temporary << " never appeared";
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == signal_number) << status;
    EXPECT_FALSE(fs::exists(temporary));
    EXPECT_EQ(temporaries_in(folder_), std::vector<std::string>{});
    EXPECT_EQ(read_text(target), "old\n");
  }
}

TEST_F(CliOutput, KilledRunsLeftoversAreRemovedNextTime) {
  const std::string dead = std::to_string(dead_pid());
  const std::string alive = std::to_string(::getpid());
  const std::vector<std::string> removed = {".k.json.tinyenc-tmp." + dead,
                                            ".k.json.tinyenc-tmp." + dead + ".3"};
  const std::vector<std::string> kept = {
      ".k.json.tinyenc-tmp." + alive,       // a run still going
      ".other.json.tinyenc-tmp." + dead,    // another target's
      ".k.json.tinyenc-tmp." + dead + "x",  // not our name
      ".k.json.tinyenc-tmp.x" + dead,
      "k.json.tmp." + dead,  // not our name either
  };
  for (const std::string& name : removed) write_text(folder_ / name, "leftover");
  for (const std::string& name : kept) write_text(folder_ / name, "someone's");
  const ProgramResult result = run_into(shell_quote(folder_ / "k.json"));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(is_result(read_text(folder_ / "k.json")));
  for (const std::string& name : removed) EXPECT_FALSE(fs::exists(folder_ / name)) << name;
  for (const std::string& name : kept) EXPECT_EQ(read_text(folder_ / name), "someone's") << name;
}

}  // namespace
}  // namespace tinyenc
