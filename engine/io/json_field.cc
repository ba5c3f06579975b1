#include "engine/io/json_field.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

#include "engine/io/json_document.h"
#include "engine/io/quoted.h"

namespace tinyenc {

nlohmann::json JsonField::parse(std::string_view bytes, const std::string& source) {
  return parse_json_document(bytes, source);
}

JsonField JsonField::file(const nlohmann::json& object, const std::string& file) {
  JsonField field(object, file, true);
  if (!object.is_object()) field.fail("", "must be a JSON object");
  return field;
}

JsonField JsonField::member(const nlohmann::json& object, const std::string& where) {
  JsonField field(object, where, false);
  if (!object.is_object()) field.fail("", "must be a JSON object");
  return field;
}

JsonField::JsonField(const nlohmann::json& value, const std::string& source,
                     const std::string& path)
    : JsonField(value, path.empty() ? source : source + ": " + path, path.empty()) {}

JsonField::JsonField(const nlohmann::json& value, std::string where, bool top_level)
    : value_(&value), where_(std::move(where)), top_level_(top_level) {}

std::string JsonField::name_of(std::string_view key) const {
  return where_ + (top_level_ ? ": " : ".") + std::string(key);
}

void JsonField::fail(const std::string& what) const { fail("", what); }

void JsonField::fail(const std::string& key, const std::string& what) const {
  // Names may come from the file (an unknown key, a folder's name): keep the message on one line.
  throw std::invalid_argument(escape_control_characters(key.empty() ? where_ : name_of(key)) +
                              ": " + what);
}

void JsonField::expect(bool ok, const char* expected) const {
  if (!ok) fail(std::string("expected ") + expected + ", found " + value_->type_name());
}

JsonField JsonField::child(std::string_view key, const nlohmann::json& value) const {
  known_.emplace(key);
  return JsonField(value, name_of(key), false);
}

JsonField JsonField::at(std::string_view key) const {
  expect(value_->is_object(), "an object");
  const auto found = value_->find(key);
  if (found == value_->end()) fail("missing field " + in_quotes(key));
  return child(key, *found);
}

std::optional<JsonField> JsonField::find(std::string_view key) const {
  expect(value_->is_object(), "an object");
  const nlohmann::json* found = value_of(key);
  if (!found || found->is_null()) return std::nullopt;
  return child(key, *found);
}

JsonField JsonField::element(size_t index) const {
  expect(value_->is_array(), "an array");
  if (index >= value_->size()) {
    fail("expected at least " + std::to_string(index + 1) + " elements");
  }
  return JsonField((*value_)[index],
                   where_ + (top_level_ ? ": [" : "[") + std::to_string(index) + "]", false);
}

std::string JsonField::as_string() const {
  expect(value_->is_string(), "a string");
  return value_->get<std::string>();
}

bool JsonField::as_bool() const {
  expect(value_->is_boolean(), "true or false");
  return value_->get<bool>();
}

int64_t JsonField::as_int(int64_t minimum, int64_t maximum) const {
  expect(value_->is_number_integer(), "an integer");
  // Unsigned values above INT64_MAX read as negative through int64_t: compare as unsigned first.
  if (value_->is_number_unsigned() && value_->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
    fail("integer " + value_->dump() + " is out of range " + std::to_string(minimum) + ".." +
         std::to_string(maximum));
  }
  const int64_t number = value_->get<int64_t>();
  if (number < minimum || number > maximum) {
    fail("integer " + std::to_string(number) + " is out of range " + std::to_string(minimum) +
         ".." + std::to_string(maximum));
  }
  return number;
}

std::vector<JsonField> JsonField::as_array() const {
  expect(value_->is_array(), "an array");
  std::vector<JsonField> out;
  for (size_t i = 0; i < value_->size(); ++i) out.push_back(element(i));
  return out;
}

std::vector<std::pair<std::string, JsonField>> JsonField::as_object() const {
  expect(value_->is_object(), "an object");
  std::vector<std::pair<std::string, JsonField>> out;
  for (auto it = value_->begin(); it != value_->end(); ++it) {
    const std::string where = where_ + (top_level_ ? ": [" : "[") + in_quotes(it.key()) + "]";
    out.emplace_back(it.key(), JsonField(it.value(), where, false));
  }
  return out;
}

const nlohmann::json* JsonField::value_of(std::string_view key) const {
  known_.emplace(key);
  const auto it = value_->find(key);
  return it == value_->end() ? nullptr : &*it;
}

std::optional<std::string> JsonField::optional_text(std::string_view key) const {
  const nlohmann::json* value = value_of(key);
  if (!value) return std::nullopt;
  if (!value->is_string()) fail(std::string(key), "must be a string");
  return value->get<std::string>();
}

std::string JsonField::text(std::string_view key, const std::string& fallback) const {
  return optional_text(key).value_or(fallback);
}

std::string JsonField::required_text(std::string_view key) const {
  const std::optional<std::string> value = optional_text(key);
  if (!value) fail(std::string(key), "missing");
  return *value;
}

std::optional<int64_t> JsonField::optional_integer(std::string_view key, int64_t minimum) const {
  const nlohmann::json* value = value_of(key);
  if (!value) return std::nullopt;
  const std::string name(key);
  if (!value->is_number_integer()) fail(name, "must be an integer");
  // nlohmann keeps integers above INT64_MAX as unsigned: they would wrap if read as int64_t.
  if (value->is_number_unsigned() &&
      value->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    fail(name, "is too large");
  }
  const int64_t result = value->get<int64_t>();
  if (result < minimum) fail(name, "must be >= " + std::to_string(minimum));
  return result;
}

int64_t JsonField::integer(std::string_view key, int64_t fallback, int64_t minimum) const {
  return optional_integer(key, minimum).value_or(fallback);
}

int64_t JsonField::required_integer(std::string_view key, int64_t minimum) const {
  const std::optional<int64_t> value = optional_integer(key, minimum);
  if (!value) fail(std::string(key), "missing");
  return *value;
}

double JsonField::number(std::string_view key, double fallback) const {
  const nlohmann::json* value = value_of(key);
  if (!value) return fallback;
  if (!value->is_number()) fail(std::string(key), "must be a number");
  const double result = value->get<double>();
  // JSON has no infinity, but a literal such as 1e999 parses to one.
  if (!std::isfinite(result)) fail(std::string(key), "must be a finite number");
  return result;
}

bool JsonField::boolean(std::string_view key, bool fallback) const {
  const nlohmann::json* value = value_of(key);
  if (!value) return fallback;
  if (!value->is_boolean()) fail(std::string(key), "must be true or false");
  return value->get<bool>();
}

void JsonField::reject_unknown(const std::string& what) const {
  for (const auto& [key, value] : value_->items()) {
    if (!known_.count(key)) fail(key, what);
  }
}

}  // namespace tinyenc
