// A WordPiece vocabulary: token <-> id, as read from BERT's vocab.txt or tokenizer.json.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tinyenc {

class WordPieceVocab {
 public:
  // BERT vocab.txt: one token per line, id = line number from 0. Lines end at '\n' (a '\r' before
  // it is dropped too); nothing else is trimmed, since " " can be a token. `source` names the file
  // in errors (std::invalid_argument): empty, invalid UTF-8 on a line, too many lines.
  static WordPieceVocab from_lines(std::string_view contents, const std::string& source);

  // Gives `token` the id `id` (ids may leave holes). A token listed twice keeps its last id, as
  // Python's dict in BERT's load_vocab does. Throws std::invalid_argument when `id` is negative or
  // already holds another token.
  void add(std::string token, int32_t id);

  std::optional<int32_t> find(std::string_view token) const;
  // The token of `id`, or "" for an id inside the range that no token has. `id` must be in range.
  const std::string& token(int32_t id) const { return tokens_[static_cast<size_t>(id)]; }
  // Highest id + 1.
  int32_t size() const { return static_cast<int32_t>(tokens_.size()); }
  // Bytes of the longest token: no longer piece of a word can match.
  size_t longest_token_bytes() const { return longest_token_bytes_; }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
  };
  std::vector<std::string> tokens_;  // by id
  size_t longest_token_bytes_ = 0;
  std::unordered_map<std::string, int32_t, Hash, std::equal_to<>> ids_;
};

}  // namespace tinyenc
