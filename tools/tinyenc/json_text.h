// JSON as text for output. Two things differ from nlohmann's dump():
//  - every number that is not an integer is printed as the shortest spelling that reads back as
//    the same float32 (std::to_chars on the float): the engine computes in float32, so the
//    digits past float precision that a double spelling shows (-1.8002359000000001) are noise;
//  - bytes that are not UTF-8 (a folder name from a Latin-1 file system, say) become U+FFFD
//    instead of failing after all the work is done.
#pragma once

#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

namespace tinyenc::cli {

// The shortest text that reads back as `value`: "0.84147096", "1e-07", "3". Not finite: "nan",
// "inf", "-inf" (JSON has no spelling for those; json_text() writes null).
inline std::string float_text(float value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

namespace detail {

template <typename Json>
void append_json(std::string& out, const Json& value, int indent, int depth) {
  const auto newline = [&](int level) {
    if (indent < 0) return;
    out += '\n';
    out.append(static_cast<size_t>(indent * level), ' ');
  };
  if (value.is_number_float()) {
    const double number = value.template get<double>();
    const float single = static_cast<float>(number);
    if (!std::isfinite(number)) {
      out += "null";
    } else if (std::isfinite(single)) {
      out += float_text(single);
    } else {  // beyond float32's range: no float32 spelling exists
      out += value.dump();
    }
  } else if (value.is_object() && !value.empty()) {
    out += '{';
    bool first = true;
    for (auto item = value.begin(); item != value.end(); ++item) {
      if (!first) out += ',';
      first = false;
      newline(depth + 1);
      out += Json(item.key()).dump(-1, ' ', false, Json::error_handler_t::replace);
      out += indent < 0 ? ":" : ": ";
      append_json(out, item.value(), indent, depth + 1);
    }
    newline(depth);
    out += '}';
  } else if (value.is_array() && !value.empty()) {
    out += '[';
    bool first = true;
    for (const auto& element : value) {
      if (!first) out += ',';
      first = false;
      newline(depth + 1);
      append_json(out, element, indent, depth + 1);
    }
    newline(depth);
    out += ']';
  } else {
    out += value.dump(-1, ' ', false, Json::error_handler_t::replace);
  }
}

}  // namespace detail

// `value` as JSON text: on one line, or with `indent` spaces per level (as dump(indent)).
template <typename Json>
std::string json_text(const Json& value, int indent = -1) {
  std::string out;
  detail::append_json(out, value, indent, 0);
  return out;
}

}  // namespace tinyenc::cli
