// Finding and loading the tokenizer of a model. These are the entry points the CLI and the model
// loaders use; each reader can also be called directly (sentencepiece_tokenizer.h, vocab_txt.h,
// tokenizer_json.h).
#pragma once

#include <filesystem>
#include <memory>

#include "tokenizer/tokenizer.h"

namespace tinyenc {

// A model folder in the Hugging Face layout. The first of these that exists is read:
//   tokenizer.model  sentencepiece (T5, XLM-R, ALBERT...)
//   tokenizer.json   Hugging Face tokenizers file with a WordPiece model
//   vocab.txt        BERT WordPiece vocabulary
// tokenizer_config.json, when present, gives do_lower_case and the special token names.
// Throws std::invalid_argument naming the file (and the field) on any problem.
std::unique_ptr<SubwordTokenizer> load_tokenizer_from_folder(const std::filesystem::path& dir);

// One tokenizer file, recognised by its name: *.model is sentencepiece, *.json a tokenizer.json,
// anything else a vocab.txt. A tokenizer_config.json in the same folder is read as well.
std::unique_ptr<SubwordTokenizer> load_tokenizer_file(const std::filesystem::path& file);

}  // namespace tinyenc
