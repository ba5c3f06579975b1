// Typed reading of one JSON object's fields, with errors that name the file and the field:
//   "tiny/config.json: hidden_size: must be an integer"
//   "tiny/config.json: position_encoding.theta: must be a number"
// It remembers which fields were asked for, so that a reader can reject the keys it does not
// know (a misspelt parameter is an error, never silently ignored).
#pragma once

#include <cstdint>
#include <exception>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace tinyenc {

// `text` in single quotes, control characters escaped (\x0a), so that an error message quoting
// a value from a file stays on one line.
std::string quote_text(std::string_view text);

// nlohmann's message without its "[json.exception.parse_error.101] " tag.
std::string json_error_message(const std::exception& error);

class JsonFields {
 public:
  // The top-level object of `file`: fields are named "<file>: <field>".
  static JsonFields file(const nlohmann::json& object, const std::string& file);
  // A nested object: `where` is "<file>: <path>", fields are named "<file>: <path>.<field>".
  static JsonFields member(const nlohmann::json& object, const std::string& where);

  // The error for `field` ("" for the object itself).
  [[noreturn]] void fail(const std::string& field, const std::string& what) const;
  std::string name_of(const std::string& field) const { return field_prefix_ + field; }

  // The value of `field`, or null when absent; the field counts as known from now on.
  const nlohmann::json* find(const std::string& field);
  bool has(const std::string& field) { return find(field) != nullptr; }

  std::optional<std::string> optional_text(const std::string& field);
  std::string text(const std::string& field, const std::string& fallback);
  std::string required_text(const std::string& field);

  std::optional<int64_t> optional_integer(const std::string& field, int64_t minimum);
  int64_t integer(const std::string& field, int64_t fallback, int64_t minimum);
  int64_t required_integer(const std::string& field, int64_t minimum);

  // A finite JSON number (integers included).
  double number(const std::string& field, double fallback);
  bool boolean(const std::string& field, bool fallback);

  // Fails on the first key that no reader asked for; `what` says why that matters here.
  void reject_unknown(const std::string& what) const;

 private:
  JsonFields(const nlohmann::json& object, std::string where, std::string field_prefix);

  const nlohmann::json& object_;
  std::string where_;
  std::string field_prefix_;
  std::set<std::string> known_;
};

}  // namespace tinyenc
