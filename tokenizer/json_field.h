// A value inside a JSON document that knows its way back: errors name the file and the field
// ("tokenizer.json: model.vocab["hello"]: expected a non-negative integer"). Internal to the
// tokenizer's file readers.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tinyenc {

class JsonField {
 public:
  // Parses `bytes`; std::invalid_argument naming `source` when they are not JSON or an object
  // repeats a key (json_document.h).
  static nlohmann::json parse(std::string_view bytes, const std::string& source);

  JsonField(const nlohmann::json& value, std::string source, std::string path = "")
      : value_(value), source_(std::move(source)), path_(std::move(path)) {}

  const nlohmann::json& value() const { return value_; }
  bool is_null() const { return value_.is_null(); }
  const std::string& path() const { return path_; }

  // A member that must be there (this must be an object).
  JsonField at(std::string_view key) const;
  // A member that may be missing; a null member counts as missing.
  std::optional<JsonField> find(std::string_view key) const;
  JsonField element(size_t index) const;

  std::string as_string() const;
  bool as_bool() const;
  int64_t as_int(int64_t minimum, int64_t maximum) const;
  // The elements of an array.
  std::vector<JsonField> as_array() const;
  // The members of an object, sorted by key (nlohmann::json keeps objects in a std::map).
  std::vector<std::pair<std::string, JsonField>> as_object() const;

  // Throws std::invalid_argument "<source>: <path>: <what>".
  [[noreturn]] void fail(const std::string& what) const;

 private:
  void expect(bool ok, const char* expected) const;

  const nlohmann::json& value_;
  std::string source_;
  std::string path_;
};

}  // namespace tinyenc
