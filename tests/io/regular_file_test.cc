// The one reader of model-folder files: regular files are read whole; FIFOs, devices, folders,
// loops of symbolic links and oversized files are refused with one line naming the path.
#include "engine/io/regular_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>

#include "tests/support/temp_folder.h"

namespace tinyenc {
namespace {

namespace fs = std::filesystem;

class RegularFileTest : public ::testing::Test {
 protected:
  fs::path write(const std::string& name, const std::string& contents) {
    std::ofstream(dir_ / name, std::ios::binary) << contents;
    return dir_ / name;
  }

  testing::TempFolder temp_{"tinyenc_regular_file"};
  const fs::path& dir_ = temp_.path();
};

// The message of the std::runtime_error `read` throws.
template <typename Read>
std::string error_of(Read read) {
  try {
    read();
  } catch (const std::runtime_error& error) {
    return error.what();
  }
  ADD_FAILURE() << "no std::runtime_error";
  return "";
}

// Should the reader ever open a FIFO and wait for a writer, this opens the write end after a
// while and closes it again: the reader then sees an empty file and the test fails, where it
// would otherwise hang.
class FifoWatchdog {
 public:
  explicit FifoWatchdog(const fs::path& fifo)
      : thread_([this, fifo] {
          std::unique_lock lock(mutex_);
          if (done_changed_.wait_for(lock, std::chrono::seconds(10), [this] { return done_; })) {
            return;
          }
          while (!done_) {
            // Succeeds only while someone has the FIFO open for reading.
            const int writer = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
            if (writer >= 0) ::close(writer);
            done_changed_.wait_for(lock, std::chrono::milliseconds(100));
          }
        }) {}
  ~FifoWatchdog() {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    done_changed_.notify_all();
    thread_.join();
  }

 private:
  std::mutex mutex_;
  std::condition_variable done_changed_;
  bool done_ = false;
  std::thread thread_;
};

TEST_F(RegularFileTest, ReadsTheWholeFile) {
  std::string contents(10000, 'x');  // more than the first read's buffer when the size is 0
  contents[9999] = 'y';
  EXPECT_EQ(read_regular_file(write("big", contents), 10000), contents);
  EXPECT_EQ(read_regular_file(write("empty", ""), 10), "");
  const RegularFile file(dir_ / "big");
  EXPECT_EQ(file.size(), 10000u);
  EXPECT_GE(file.descriptor(), 0);
}

TEST_F(RegularFileTest, FifoIsRefusedWithoutWaitingForAWriter) {
  const fs::path fifo = dir_ / "config.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const FifoWatchdog watchdog(fifo);
  EXPECT_EQ(error_of([&] { read_regular_file(fifo, 100); }),
            fifo.string() + ": not a regular file");
  EXPECT_EQ(error_of([&] { RegularFile file(fifo); }), fifo.string() + ": not a regular file");
}

TEST_F(RegularFileTest, DevicesAndFoldersAreRefused) {
  // /dev/zero never reaches its end (the limit would stop a reader that tried); through a link,
  // as a model folder might hold it.
  fs::create_symlink("/dev/zero", dir_ / "zero");
  EXPECT_EQ(error_of([&] { read_regular_file(dir_ / "zero", 100); }),
            (dir_ / "zero").string() + ": not a regular file");
  EXPECT_EQ(error_of([&] { read_regular_file("/dev/null", 100); }),
            "/dev/null: not a regular file");
  EXPECT_EQ(error_of([&] { read_regular_file(dir_, 100); }),
            dir_.string() + ": is a folder, not a file");
}

TEST_F(RegularFileTest, MissingFilesAndLoopsSayWhy) {
  const fs::path missing = dir_ / "missing";
  try {
    read_regular_file(missing, 100);
    FAIL() << "no error";
  } catch (const std::system_error& error) {
    EXPECT_EQ(error.code(), std::errc::no_such_file_or_directory);
    EXPECT_EQ(std::string(error.what()),
              missing.string() + ": cannot open: No such file or directory");
  }
  fs::create_symlink("loop", dir_ / "loop");
  EXPECT_EQ(error_of([&] { read_regular_file(dir_ / "loop", 100); }),
            (dir_ / "loop").string() + ": cannot open: Too many levels of symbolic links");
}

TEST_F(RegularFileTest, FilesAboveTheLimitAreRefused) {
  const fs::path file = write("config.json", std::string(101, ' '));
  EXPECT_EQ(read_regular_file(file, 101).size(), 101u);
  EXPECT_EQ(error_of([&] { read_regular_file(file, 100); }),
            file.string() + ": larger than 100 bytes, the limit for this file");
}

TEST_F(RegularFileTest, FileTypeOfFollowsLinksAndReportsLoops) {
  EXPECT_EQ(file_type_of(dir_), fs::file_type::directory);
  EXPECT_EQ(file_type_of(write("file", "x")), fs::file_type::regular);
  EXPECT_EQ(file_type_of(dir_ / "missing"), fs::file_type::not_found);
  EXPECT_EQ(file_type_of(dir_ / "file" / "below"), fs::file_type::not_found);
  fs::create_symlink("missing", dir_ / "dangling");
  EXPECT_EQ(file_type_of(dir_ / "dangling"), fs::file_type::not_found);
  fs::create_symlink("loop", dir_ / "loop");
  EXPECT_EQ(error_of([&] { file_type_of(dir_ / "loop"); }),
            (dir_ / "loop").string() + ": Too many levels of symbolic links");
}

}  // namespace
}  // namespace tinyenc
