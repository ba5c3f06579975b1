#include "tokenizer/tokenizer_file.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <system_error>

namespace tinyenc {

std::string read_tokenizer_file(const std::filesystem::path& path) {
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (!std::filesystem::exists(status)) {
    throw std::invalid_argument(path.string() + ": no such file");
  }
  if (std::filesystem::is_directory(status)) {
    throw std::invalid_argument(path.string() + ": is a folder, not a file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument(path.string() + ": cannot open for reading");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw std::invalid_argument(path.string() + ": read error");
  if (bytes.empty()) throw std::invalid_argument(path.string() + ": empty file");
  return bytes;
}

std::string in_quotes(std::string_view text) {
  constexpr size_t kMaxShown = 60;
  size_t shown = std::min(text.size(), kMaxShown);
  // Cut before a character, not inside its UTF-8 sequence.
  while (shown < text.size() && shown > 0 &&
         (static_cast<unsigned char>(text[shown]) & 0xC0) == 0x80) {
    --shown;
  }
  std::string out = "'";
  for (size_t i = 0; i < shown; ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte == '\n') {
      out += "\\n";
    } else if (byte == '\t') {
      out += "\\t";
    } else if (byte < 0x20 || byte == 0x7F) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02X", byte);
      out += escaped;
    } else {
      out += static_cast<char>(byte);
    }
  }
  out += shown < text.size() ? "'..." : "'";
  return out;
}

}  // namespace tinyenc
