// Where tests find their data: committed goldens in the source tree, and the third-party test
// data folder named by TINYENC_TESTDATA (default ../shared/testdata beside the checkout).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace tinyenc::testing {

std::filesystem::path source_dir();

// The folder of a model shipped in models/pretrained (`order-rope`, `order-learned`...).
std::filesystem::path pretrained_model(const std::string& name);

// The shared test data folder, or nullopt when it does not exist.
std::optional<std::filesystem::path> testdata_dir();

// Skips the calling test with a visible message when the shared test data is absent.
#define TINYENC_REQUIRE_TESTDATA(dir_variable)                                     \
  const auto dir_variable##_optional = ::tinyenc::testing::testdata_dir();         \
  if (!dir_variable##_optional) {                                                  \
    GTEST_SKIP() << "shared test data not found (set TINYENC_TESTDATA; looked in " \
                 << ::tinyenc::testing::testdata_location() << ")";                \
  }                                                                                \
  const std::filesystem::path dir_variable = *dir_variable##_optional

std::string testdata_location();

nlohmann::json read_json(const std::filesystem::path& path);
std::vector<char> read_bytes(const std::filesystem::path& path);

}  // namespace tinyenc::testing
