// A value inside a JSON document that knows its way back, so that every error names the file and
// the field: "tokenizer.json: model.vocab['hello']: expected a non-negative integer",
// "tiny/config.json: position_encoding.theta: must be a number". The one JSON reader of the
// tokenizer's and the models' files.
//
// Two ways to read: walking the document (at, find, element, as_*), and reading the members of
// one object by name with a fallback (text, integer, number, boolean...). An object remembers
// which members were asked for, so that a reader can reject the keys it does not know (a misspelt
// parameter is an error, never silently ignored).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace tinyenc {

class JsonField {
 public:
  // Parses `bytes`; std::invalid_argument naming `source` when they are not JSON or an object
  // repeats a key (json_document.h).
  static nlohmann::json parse(std::string_view bytes, const std::string& source);

  // The top-level object of `file`: members are named "<file>: <key>". Fails "<file>: must be a
  // JSON object" for anything else.
  static JsonField file(const nlohmann::json& object, const std::string& file);
  // An object nested at `where` ("<file>: <path>"): members are named "<where>.<key>".
  static JsonField member(const nlohmann::json& object, const std::string& where);

  // `value` at `path` ("" for the top level) of the document read from `source`.
  JsonField(const nlohmann::json& value, const std::string& source, const std::string& path = "");

  const nlohmann::json& value() const { return *value_; }
  bool is_null() const { return value_->is_null(); }

  // Throws std::invalid_argument "<source>: <path>: <what>".
  [[noreturn]] void fail(const std::string& what) const;
  // The same for the member `key` ("" for this value).
  [[noreturn]] void fail(const std::string& key, const std::string& what) const;
  // "<source>: <key>" or "<source>: <path>.<key>".
  std::string name_of(std::string_view key) const;

  // Walking the document.

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

  // Reading an object's members by name (this must be an object).

  // The member `key` as it is, null included; nullptr when absent.
  const nlohmann::json* value_of(std::string_view key) const;
  bool has(std::string_view key) const { return value_of(key) != nullptr; }

  std::optional<std::string> optional_text(std::string_view key) const;
  std::string text(std::string_view key, const std::string& fallback) const;
  std::string required_text(std::string_view key) const;

  std::optional<int64_t> optional_integer(std::string_view key, int64_t minimum) const;
  int64_t integer(std::string_view key, int64_t fallback, int64_t minimum) const;
  int64_t required_integer(std::string_view key, int64_t minimum) const;

  // A finite JSON number (integers included).
  double number(std::string_view key, double fallback) const;
  bool boolean(std::string_view key, bool fallback) const;

  // Fails on the first key that no reader asked for; `what` says why that matters here.
  void reject_unknown(const std::string& what) const;

 private:
  JsonField(const nlohmann::json& value, std::string where, bool top_level);
  JsonField child(std::string_view key, const nlohmann::json& value) const;
  void expect(bool ok, const char* expected) const;

  const nlohmann::json* value_;
  std::string where_;  // "<source>" or "<source>: <path>"
  bool top_level_;     // members are "<source>: <key>", else "<where>.<key>"
  // The members asked for. A reader's own bookkeeping, not the document's: const readers
  // record it too.
  mutable std::set<std::string, std::less<>> known_;
};

}  // namespace tinyenc
