#include "engine/io/quoted.h"

#include <algorithm>
#include <cstdio>

namespace tinyenc {

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
