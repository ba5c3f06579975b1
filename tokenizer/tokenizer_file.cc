#include "tokenizer/tokenizer_file.h"

#include <stdexcept>
#include <system_error>

#include "engine/io/regular_file.h"

namespace tinyenc {

std::string read_tokenizer_file(const std::filesystem::path& path) {
  std::string bytes;
  try {
    bytes = read_regular_file(path, kMaxTokenizerFileBytes);
  } catch (const std::system_error& error) {
    if (error.code() == std::errc::no_such_file_or_directory) {
      throw std::invalid_argument(path.string() + ": no such file");
    }
    throw std::invalid_argument(error.what());
  } catch (const std::runtime_error& error) {
    throw std::invalid_argument(error.what());
  }
  if (bytes.empty()) throw std::invalid_argument(path.string() + ": empty file");
  return bytes;
}

}  // namespace tinyenc
