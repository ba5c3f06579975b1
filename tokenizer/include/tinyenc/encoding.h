// What a tokenizer gives back for one text or a pair of texts: parallel arrays, one entry per
// token, in the layout the encoder consumes (ids, token types) plus what a person needs to see
// where each token came from (its piece and its byte range in the input). Part of the public
// library (<tinyenc/encoding.h>): the standard library only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tinyenc {

// Bytes [begin, end) of the input text a token covers. Special tokens added by a template cover
// nothing: {0, 0}.
struct TokenSpan {
  size_t begin = 0;
  size_t end = 0;
  // Written out rather than defaulted: the public headers compile as C++17 too.
  friend bool operator==(const TokenSpan& a, const TokenSpan& b) {
    return a.begin == b.begin && a.end == b.end;
  }
  friend bool operator!=(const TokenSpan& a, const TokenSpan& b) { return !(a == b); }
};

// Which input a token came from, as Hugging Face's `sequence_ids()`: the first text, the
// second text of a pair, or none (a special token added by the template).
enum class TokenSource : int8_t { kSpecial = -1, kFirst = 0, kSecond = 1 };

struct Encoding {
  std::vector<std::string> tokens;      // vocabulary pieces: "▁the", "##ing", "[CLS]"
  std::vector<int32_t> ids;             // vocabulary ids, what the embedding table is indexed by
  std::vector<int32_t> token_type_ids;  // BERT segment: 0 for the first text, 1 for the second
  std::vector<TokenSource> sources;     // which text each token belongs to
  std::vector<TokenSpan> offsets;       // byte range in that text

  size_t size() const { return ids.size(); }
  void append(std::string token, int32_t id, int32_t type_id, TokenSource source, TokenSpan span) {
    tokens.push_back(std::move(token));
    ids.push_back(id);
    token_type_ids.push_back(type_id);
    sources.push_back(source);
    offsets.push_back(span);
  }
};

}  // namespace tinyenc
