#include "tokenizer/json_field.h"

#include <stdexcept>

#include "tokenizer/json_document.h"
#include "tokenizer/tokenizer_file.h"

namespace tinyenc {

nlohmann::json JsonField::parse(std::string_view bytes, const std::string& source) {
  return parse_json_document(bytes, source);
}

void JsonField::fail(const std::string& what) const {
  throw std::invalid_argument(source_ + ": " + (path_.empty() ? "" : path_ + ": ") + what);
}

void JsonField::expect(bool ok, const char* expected) const {
  if (!ok) fail(std::string("expected ") + expected + ", found " + value_.type_name());
}

JsonField JsonField::at(std::string_view key) const {
  const std::string child = path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  expect(value_.is_object(), "an object");
  const auto found = value_.find(key);
  if (found == value_.end()) fail("missing field " + in_quotes(key));
  return JsonField(*found, source_, child);
}

std::optional<JsonField> JsonField::find(std::string_view key) const {
  expect(value_.is_object(), "an object");
  const auto found = value_.find(key);
  if (found == value_.end() || found->is_null()) return std::nullopt;
  return JsonField(*found, source_,
                   path_.empty() ? std::string(key) : path_ + "." + std::string(key));
}

JsonField JsonField::element(size_t index) const {
  expect(value_.is_array(), "an array");
  if (index >= value_.size()) fail("expected at least " + std::to_string(index + 1) + " elements");
  return JsonField(value_[index], source_, path_ + "[" + std::to_string(index) + "]");
}

std::string JsonField::as_string() const {
  expect(value_.is_string(), "a string");
  return value_.get<std::string>();
}

bool JsonField::as_bool() const {
  expect(value_.is_boolean(), "true or false");
  return value_.get<bool>();
}

int64_t JsonField::as_int(int64_t minimum, int64_t maximum) const {
  expect(value_.is_number_integer(), "an integer");
  // Unsigned values above INT64_MAX read as negative through int64_t: compare as unsigned first.
  if (value_.is_number_unsigned() && value_.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
    fail("integer " + value_.dump() + " is out of range " + std::to_string(minimum) + ".." +
         std::to_string(maximum));
  }
  const int64_t number = value_.get<int64_t>();
  if (number < minimum || number > maximum) {
    fail("integer " + std::to_string(number) + " is out of range " + std::to_string(minimum) +
         ".." + std::to_string(maximum));
  }
  return number;
}

std::vector<JsonField> JsonField::as_array() const {
  expect(value_.is_array(), "an array");
  std::vector<JsonField> out;
  for (size_t i = 0; i < value_.size(); ++i) {
    out.emplace_back(value_[i], source_, path_ + "[" + std::to_string(i) + "]");
  }
  return out;
}

std::vector<std::pair<std::string, JsonField>> JsonField::as_object() const {
  expect(value_.is_object(), "an object");
  std::vector<std::pair<std::string, JsonField>> out;
  for (auto it = value_.begin(); it != value_.end(); ++it) {
    out.emplace_back(it.key(),
                     JsonField(it.value(), source_, path_ + "[" + in_quotes(it.key()) + "]"));
  }
  return out;
}

}  // namespace tinyenc
