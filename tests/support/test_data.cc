#include "tests/support/test_data.h"

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace tinyenc::testing {

std::filesystem::path source_dir() { return TINYENC_SOURCE_DIR; }

std::filesystem::path pretrained_model(const std::string& name) {
  return source_dir() / "models" / "pretrained" / name;
}

std::string testdata_location() {
  const char* configured = std::getenv("TINYENC_TESTDATA");
  return (configured && *configured) ? configured : TINYENC_DEFAULT_TESTDATA;
}

std::optional<std::filesystem::path> testdata_dir() {
  const std::filesystem::path dir = testdata_location();
  if (!std::filesystem::is_directory(dir)) return std::nullopt;
  return dir;
}

std::vector<char> read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path.string());
  return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

nlohmann::json read_json(const std::filesystem::path& path) {
  const std::vector<char> bytes = read_bytes(path);
  return nlohmann::json::parse(bytes.begin(), bytes.end());
}

}  // namespace tinyenc::testing
