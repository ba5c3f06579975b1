#include "models/json_fields.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string_view>
#include <utility>

namespace tinyenc {

std::string quote_text(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string result = "'";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      result += "\\x";
      result += kHex[byte >> 4];
      result += kHex[byte & 0xf];
    } else {
      result += c;
    }
  }
  return result + "'";
}

std::string json_error_message(const std::exception& error) {
  std::string_view message = error.what();
  if (message.starts_with("[json.exception.")) {
    const size_t tag_end = message.find("] ");
    if (tag_end != std::string_view::npos) message.remove_prefix(tag_end + 2);
  }
  return std::string(message);
}

JsonFields JsonFields::file(const nlohmann::json& object, const std::string& file) {
  return JsonFields(object, file, file + ": ");
}

JsonFields JsonFields::member(const nlohmann::json& object, const std::string& where) {
  return JsonFields(object, where, where + ".");
}

JsonFields::JsonFields(const nlohmann::json& object, std::string where, std::string field_prefix)
    : object_(object), where_(std::move(where)), field_prefix_(std::move(field_prefix)) {
  if (!object.is_object()) fail("", "must be a JSON object");
}

void JsonFields::fail(const std::string& field, const std::string& what) const {
  // A field name may come from the file (an unknown key): keep the message on one line.
  const std::string name = field.empty() ? where_ : name_of(field);
  const std::string quoted = quote_text(name);
  throw std::invalid_argument(quoted.substr(1, quoted.size() - 2) + ": " + what);
}

const nlohmann::json* JsonFields::find(const std::string& field) {
  known_.insert(field);
  const auto it = object_.find(field);
  return it == object_.end() ? nullptr : &*it;
}

std::optional<std::string> JsonFields::optional_text(const std::string& field) {
  const nlohmann::json* value = find(field);
  if (!value) return std::nullopt;
  if (!value->is_string()) fail(field, "must be a string");
  return value->get<std::string>();
}

std::string JsonFields::text(const std::string& field, const std::string& fallback) {
  return optional_text(field).value_or(fallback);
}

std::string JsonFields::required_text(const std::string& field) {
  const std::optional<std::string> value = optional_text(field);
  if (!value) fail(field, "missing");
  return *value;
}

std::optional<int64_t> JsonFields::optional_integer(const std::string& field, int64_t minimum) {
  const nlohmann::json* value = find(field);
  if (!value) return std::nullopt;
  if (!value->is_number_integer()) fail(field, "must be an integer");
  // nlohmann keeps integers above INT64_MAX as unsigned: they would wrap if read as int64_t.
  if (value->is_number_unsigned() &&
      value->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    fail(field, "is too large");
  }
  const int64_t result = value->get<int64_t>();
  if (result < minimum) fail(field, "must be >= " + std::to_string(minimum));
  return result;
}

int64_t JsonFields::integer(const std::string& field, int64_t fallback, int64_t minimum) {
  return optional_integer(field, minimum).value_or(fallback);
}

int64_t JsonFields::required_integer(const std::string& field, int64_t minimum) {
  const std::optional<int64_t> value = optional_integer(field, minimum);
  if (!value) fail(field, "missing");
  return *value;
}

double JsonFields::number(const std::string& field, double fallback) {
  const nlohmann::json* value = find(field);
  if (!value) return fallback;
  if (!value->is_number()) fail(field, "must be a number");
  const double result = value->get<double>();
  // JSON has no infinity, but a literal such as 1e999 parses to one.
  if (!std::isfinite(result)) fail(field, "must be a finite number");
  return result;
}

bool JsonFields::boolean(const std::string& field, bool fallback) {
  const nlohmann::json* value = find(field);
  if (!value) return fallback;
  if (!value->is_boolean()) fail(field, "must be true or false");
  return value->get<bool>();
}

void JsonFields::reject_unknown(const std::string& what) const {
  for (const auto& [key, value] : object_.items()) {
    if (!known_.count(key)) fail(key, what);
  }
}

}  // namespace tinyenc
