// BERT's vocab.txt as a WordPiece tokenizer, the way transformers' BertTokenizer reads it: one
// token per line (id = line number), BERT's basic tokenizer lower-casing unless the config says
// do_lower_case false, and `[CLS] a [SEP]` around texts when the vocabulary has both tokens.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "tokenizer/tokenizer_config.h"
#include "tokenizer/wordpiece_tokenizer.h"

namespace tinyenc {

// `contents` are the bytes of vocab.txt; `source` names it in errors (std::invalid_argument).
// The special tokens the vocabulary holds are also cut out of raw text wherever they occur, as
// transformers does, so "[MASK]" inside a sentence is the mask token.
std::unique_ptr<WordPieceTokenizer> wordpiece_from_vocab_txt(std::string_view contents,
                                                             const std::string& source,
                                                             const TokenizerConfig& config = {});

}  // namespace tinyenc
