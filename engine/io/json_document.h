// Parsing the JSON files the loaders read (config.json, tokenizer.json, tokenizer_config.json,
// the safetensors header) with one rule nlohmann::json does not keep: an object names each key
// once. nlohmann silently keeps the last of repeated keys, Python's json module too, other
// readers the first; a file that means different things to different readers is refused.
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tinyenc {

// what(): "<where>: key '<key>' appears more than once", or without "<where>: " for a key of the
// top-level object. <where> names the enclosing object as "model.vocab" or "items[2].name".
class RepeatedJsonKey : public std::invalid_argument {
 public:
  RepeatedJsonKey(const std::string& where, const std::string& key);
  const std::string& key() const { return key_; }
  bool top_level() const { return top_level_; }

 private:
  std::string key_;
  bool top_level_;
};

// nlohmann's message without its "[json.exception.parse_error.101] " tag.
std::string json_error_message(const std::exception& error);

// nlohmann::json::parse(text), which throws nlohmann::json::exception for text that is not JSON,
// and RepeatedJsonKey for the first repeated key.
nlohmann::json parse_json_unique_keys(std::string_view text);

// The same with one-line errors that name the file: std::invalid_argument
// "<source>: not valid JSON: <what>" or "<source>: <RepeatedJsonKey::what()>".
nlohmann::json parse_json_document(std::string_view text, const std::string& source);

}  // namespace tinyenc
