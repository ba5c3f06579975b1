// A Hugging Face tokenizers file (tokenizer.json) whose model is WordPiece, read into the same
// WordPiece tokenizer as vocab.txt: model.vocab and added_tokens give the vocabulary; the
// normalizer (BertNormalizer, Lowercase, StripAccents, NFD, or a Sequence of them), the
// pre_tokenizer (BertPreTokenizer, Whitespace, WhitespaceSplit) and the post_processor
// (TemplateProcessing, BertProcessing, RobertaProcessing) give the options and the template.
// Anything else is refused by name rather than approximated.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "tokenizer/tokenizer_config.h"
#include "tokenizer/wordpiece_tokenizer.h"

namespace tinyenc {

// `json` are the bytes of tokenizer.json; `source` names it in errors (std::invalid_argument
// "<source>: <field>: <what>"). `config` only renames the special tokens.
std::unique_ptr<WordPieceTokenizer> wordpiece_from_tokenizer_json(
    std::string_view json, const std::string& source, const TokenizerConfig& config = {});

}  // namespace tinyenc
