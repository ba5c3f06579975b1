// Tokens the vocabulary does not know. A tokenizer gives every one of them its unknown id
// (sentencepiece's <unk>, WordPiece's [UNK]), so the model sees the same embedding for 狗 and for
// 人: its answer on them is a guess, and two sentences that differ only there are the same
// sentence to it. `run`, `tokenize` and `order` mark them in every output and name them in one
// warning line on stderr.
#pragma once

#include <tinyenc/encoding.h>
#include <tinyenc/tokenizer.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace tinyenc::cli {

// The unknown id of a tokenizer and its piece ("<unk>", "[UNK]"); no id without a tokenizer.
struct UnknownToken {
  std::optional<int32_t> id;
  std::string piece;

  static UnknownToken of(const Tokenizer& tokenizer);
};

// Positions in `encoding` holding the unknown id, template tokens excepted.
std::vector<size_t> unknown_positions(const Encoding& encoding, const UnknownToken& unknown);

// The input text token `t` stands for, without the spaces around it ("" for a template token);
// with a pair, kSecond tokens come from `second`.
std::string token_source(const Encoding& encoding, size_t t, std::string_view first,
                         std::string_view second = {});

// How tables show an unknown token: ⟨unk:狗⟩, the text it stands for (its piece when it covers
// no text, as for --ids).
std::string unknown_marker(std::string_view source, std::string_view piece);

// The tokens of `encoding` as tables show them: unknown ones as unknown_marker() writes them.
std::vector<std::string> marked_tokens(const Encoding& encoding, const std::vector<size_t>& unknown,
                                       std::string_view first, std::string_view second = {});

// The unknown tokens of a run's inputs, for the one warning line.
class UnknownTally {
 public:
  // One input text (or pair): its unknown tokens' source texts.
  void add(const std::vector<std::string>& sources);
  size_t texts() const { return texts_; }
  size_t tokens() const { return tokens_; }

  // "9 tokens in 3 of 3 texts are unknown to the vocabulary (<unk>, id 1): '狗' '咬人' ...; ..."
  // or "" when there were none. `piece`/`id` name the unknown token.
  std::string message(const UnknownToken& unknown) const;
  // "tinyenc: warning: <message>" on stderr, when there is one.
  void warn(const UnknownToken& unknown, const std::string& prefix = "") const;

 private:
  size_t texts_ = 0, texts_with_unknown_ = 0, tokens_ = 0;
  std::vector<std::string> words_;  // distinct, in first-seen order
  std::set<std::string> seen_;
};

}  // namespace tinyenc::cli
