// JSON as text for output: bytes that are not UTF-8 (a folder name from a Latin-1 file system,
// say) become U+FFFD instead of failing after all the work is done.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace tinyenc::cli {

template <typename Json>
std::string json_text(const Json& value, int indent = -1) {
  return value.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace tinyenc::cli
