#include "tokenizer/load_tokenizer.h"

#include <stdexcept>
#include <system_error>

#include "tokenizer/sentencepiece_tokenizer.h"
#include "tokenizer/tokenizer_config.h"
#include "tokenizer/tokenizer_file.h"
#include "tokenizer/tokenizer_json.h"
#include "tokenizer/vocab_txt.h"

namespace tinyenc {
namespace {

bool is_file(const std::filesystem::path& path) {
  std::error_code error;
  return std::filesystem::is_regular_file(path, error);
}

TokenizerConfig config_beside(const std::filesystem::path& file) {
  const std::filesystem::path config = file.parent_path() / "tokenizer_config.json";
  if (!is_file(config)) return {};
  return parse_tokenizer_config(read_tokenizer_file(config), config.string());
}

}  // namespace

std::unique_ptr<Tokenizer> load_tokenizer_file(const std::filesystem::path& file) {
  const std::string bytes = read_tokenizer_file(file);
  const std::string extension = file.extension().string();
  if (extension == ".model") return SentencePieceTokenizer::from_model(bytes, file.string());
  const TokenizerConfig config = config_beside(file);
  if (extension == ".json") return wordpiece_from_tokenizer_json(bytes, file.string(), config);
  return wordpiece_from_vocab_txt(bytes, file.string(), config);
}

std::unique_ptr<Tokenizer> load_tokenizer_from_folder(const std::filesystem::path& dir) {
  std::error_code error;
  if (!std::filesystem::is_directory(dir, error)) {
    throw std::invalid_argument(dir.string() + (std::filesystem::exists(dir, error)
                                                    ? ": not a folder"
                                                    : ": no such folder"));
  }
  for (const char* name : {"tokenizer.model", "tokenizer.json", "vocab.txt"}) {
    if (is_file(dir / name)) return load_tokenizer_file(dir / name);
  }
  throw std::invalid_argument(dir.string() +
                              ": no tokenizer.model, tokenizer.json or vocab.txt in this folder");
}

}  // namespace tinyenc
