#include "tokenizer/load_tokenizer.h"

#include <stdexcept>

#include "engine/io/regular_file.h"
#include "tokenizer/sentencepiece_tokenizer.h"
#include "tokenizer/tokenizer_config.h"
#include "tokenizer/tokenizer_file.h"
#include "tokenizer/tokenizer_json.h"
#include "tokenizer/vocab_txt.h"

namespace tinyenc {
namespace {

// file_type_of, failing with the tokenizer's error type.
std::filesystem::file_type type_of(const std::filesystem::path& path) {
  try {
    return file_type_of(path);
  } catch (const std::runtime_error& error) {
    throw std::invalid_argument(error.what());
  }
}

// Whether `path` names anything, for choosing among the files a folder may hold. Anything that
// is there counts, a FIFO or a folder too: reading it then says what is wrong with it, where
// skipping it would quietly load another file or none.
bool present(const std::filesystem::path& path) {
  return type_of(path) != std::filesystem::file_type::not_found;
}

TokenizerConfig config_beside(const std::filesystem::path& file) {
  const std::filesystem::path config = file.parent_path() / "tokenizer_config.json";
  if (!present(config)) return {};
  return parse_tokenizer_config(read_tokenizer_file(config), config.string());
}

}  // namespace

std::unique_ptr<SubwordTokenizer> load_tokenizer_file(const std::filesystem::path& file) {
  const std::string bytes = read_tokenizer_file(file);
  const std::string extension = file.extension().string();
  if (extension == ".model") return SentencePieceTokenizer::from_model(bytes, file.string());
  const TokenizerConfig config = config_beside(file);
  if (extension == ".json") return wordpiece_from_tokenizer_json(bytes, file.string(), config);
  return wordpiece_from_vocab_txt(bytes, file.string(), config);
}

std::unique_ptr<SubwordTokenizer> load_tokenizer_from_folder(const std::filesystem::path& dir) {
  const std::filesystem::file_type type = type_of(dir);
  if (type == std::filesystem::file_type::not_found) {
    throw std::invalid_argument(dir.string() + ": no such folder");
  }
  if (type != std::filesystem::file_type::directory) {
    throw std::invalid_argument(dir.string() + ": not a folder");
  }
  for (const char* name : {"tokenizer.model", "tokenizer.json", "vocab.txt"}) {
    if (present(dir / name)) return load_tokenizer_file(dir / name);
  }
  throw std::invalid_argument(dir.string() +
                              ": no tokenizer.model, tokenizer.json or vocab.txt in this folder");
}

}  // namespace tinyenc
