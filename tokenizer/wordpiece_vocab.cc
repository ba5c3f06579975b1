#include "tokenizer/wordpiece_vocab.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "engine/io/quoted.h"
#include "engine/io/utf8.h"

namespace tinyenc {

// Ids index an embedding table; real vocabularies stay below 300k tokens. The bound keeps a
// hostile file from making us allocate gigabytes for one huge id.
constexpr int32_t kMaxVocabSize = 1 << 22;

WordPieceVocab WordPieceVocab::from_lines(std::string_view contents, const std::string& source) {
  if (contents.empty()) throw std::invalid_argument(source + ": empty vocabulary file");
  WordPieceVocab vocab;
  size_t line_number = 0;
  for (size_t start = 0; start < contents.size(); ++line_number) {
    size_t end = contents.find('\n', start);
    if (end == std::string_view::npos) end = contents.size();
    std::string_view line = contents.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (const auto offset = find_invalid_utf8(line)) {
      throw std::invalid_argument(source + ": line " + std::to_string(line_number + 1) +
                                  ": invalid UTF-8 at byte " + std::to_string(*offset));
    }
    if (line_number >= static_cast<size_t>(kMaxVocabSize)) {
      throw std::invalid_argument(source + ": more than " + std::to_string(kMaxVocabSize) +
                                  " lines; not a vocabulary");
    }
    vocab.add(std::string(line), static_cast<int32_t>(line_number));
    start = end + 1;
  }
  return vocab;
}

void WordPieceVocab::add(std::string token, int32_t id) {
  if (id < 0 || id >= kMaxVocabSize) {
    throw std::invalid_argument("token id " + std::to_string(id) + " of " + in_quotes(token) +
                                " is outside 0.." + std::to_string(kMaxVocabSize - 1));
  }
  const size_t index = static_cast<size_t>(id);
  if (index >= tokens_.size()) tokens_.resize(index + 1);
  if (!tokens_[index].empty() && tokens_[index] != token) {
    throw std::invalid_argument("token id " + std::to_string(id) + " is given to both " +
                                in_quotes(tokens_[index]) + " and " + in_quotes(token));
  }
  tokens_[index] = token;
  longest_token_bytes_ = std::max(longest_token_bytes_, token.size());
  ids_.insert_or_assign(std::move(token), id);
}

std::optional<int32_t> WordPieceVocab::find(std::string_view token) const {
  const auto found = ids_.find(token);
  if (found == ids_.end()) return std::nullopt;
  return found->second;
}

}  // namespace tinyenc
