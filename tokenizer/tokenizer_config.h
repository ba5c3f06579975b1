// tokenizer_config.json (Hugging Face transformers): the fields that change how a BERT vocab.txt
// reads text and which tokens are special. Every field is optional.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/wordpiece_tokenizer.h"

namespace tinyenc {

struct TokenizerConfig {
  std::optional<bool> do_lower_case;           // BertTokenizer's default is true
  std::optional<bool> strip_accents;           // null: follow do_lower_case
  std::optional<bool> tokenize_chinese_chars;  // default true
  std::vector<std::string> never_split;
  SpecialTokenNames special_names;  // unk_token, cls_token, sep_token, pad_token, mask_token
};

// std::invalid_argument naming `source` and the field when a present field has the wrong type.
TokenizerConfig parse_tokenizer_config(std::string_view json, const std::string& source);

}  // namespace tinyenc
