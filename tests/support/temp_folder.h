// A folder of a test's own under the system's temporary folder: <tmp>/<prefix>.<pid>.<name>,
// made empty when constructed and removed with everything in it when destroyed (permissions given
// back first, so that a test may leave folders it closed to writes behind).
//
// The name is the current test's, with a '/' (a parameterized test's "Case/0") made '_'. A folder
// made where no test is running, such as a function-local static that the tests of a file share
// (removed when the program exits), is given its name.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>

namespace tinyenc::testing {

class TempFolder {
 public:
  explicit TempFolder(const std::string& prefix) : TempFolder(prefix, current_test_name()) {}
  TempFolder(const std::string& prefix, std::string name) {
    std::replace(name.begin(), name.end(), '/', '_');
    path_ = std::filesystem::temp_directory_path() /
            (prefix + "." + std::to_string(::getpid()) + "." + name);
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempFolder() {
    namespace fs = std::filesystem;
    std::error_code ignored;
    fs::permissions(path_, fs::perms::owner_all, fs::perm_options::add, ignored);
    for (const auto& entry : fs::recursive_directory_iterator(path_, ignored)) {
      if (entry.is_directory(ignored) && !entry.is_symlink(ignored)) {
        fs::permissions(entry.path(), fs::perms::owner_all, fs::perm_options::add, ignored);
      }
    }
    fs::remove_all(path_, ignored);
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  static std::string current_test_name() {
    const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
    if (test == nullptr) {
      throw std::logic_error("TempFolder(prefix) outside a test: give the folder a name");
    }
    return test->name();
  }

  std::filesystem::path path_;
};

}  // namespace tinyenc::testing
