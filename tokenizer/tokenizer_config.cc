#include "tokenizer/tokenizer_config.h"

#include "engine/io/json_field.h"

namespace tinyenc {
namespace {

// A special token is written either as its text or, by newer transformers, as an AddedToken
// object {"content": "[CLS]", "lstrip": false, ...}.
void read_token_name(const JsonField& root, std::string_view key, std::string& name) {
  const auto field = root.find(key);
  if (!field) return;
  name = field->value().is_object() ? field->at("content").as_string() : field->as_string();
}

std::optional<bool> read_flag(const JsonField& root, std::string_view key) {
  const auto field = root.find(key);
  if (!field) return std::nullopt;
  return field->as_bool();
}

}  // namespace

TokenizerConfig parse_tokenizer_config(std::string_view json, const std::string& source) {
  const nlohmann::json document = JsonField::parse(json, source);
  const JsonField root(document, source);
  if (!document.is_object()) root.fail("expected a JSON object");
  TokenizerConfig config;
  config.do_lower_case = read_flag(root, "do_lower_case");
  config.strip_accents = read_flag(root, "strip_accents");
  config.tokenize_chinese_chars = read_flag(root, "tokenize_chinese_chars");
  if (const auto never_split = root.find("never_split")) {
    for (const JsonField& word : never_split->as_array()) {
      config.never_split.push_back(word.as_string());
    }
  }
  read_token_name(root, "unk_token", config.special_names.unk);
  read_token_name(root, "cls_token", config.special_names.cls);
  read_token_name(root, "sep_token", config.special_names.sep);
  read_token_name(root, "pad_token", config.special_names.pad);
  read_token_name(root, "mask_token", config.special_names.mask);
  return config;
}

}  // namespace tinyenc
