#include "tokenizer/tokenizer_file.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <system_error>

#include "tokenizer/regular_file.h"

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

std::string escape_control_characters(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte == '\n') {
      out += "\\n";
    } else if (byte == '\t') {
      out += "\\t";
    } else if (byte < 0x20 || byte == 0x7F) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02X", byte);
      out += escaped;
    } else {
      out += c;
    }
  }
  return out;
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
  out += escape_control_characters(text.substr(0, shown));
  out += shown < text.size() ? "'..." : "'";
  return out;
}

}  // namespace tinyenc
