#include "tokenizer/long_text.h"

#include <algorithm>

namespace tinyenc {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// Tokens that came from the text, not from the template.
int64_t text_tokens(const Encoding& encoding) {
  int64_t count = 0;
  for (TokenSource source : encoding.sources) count += source != TokenSource::kSpecial;
  return count;
}

}  // namespace

std::string_view text_prefix(std::string_view text, size_t bytes) {
  if (bytes >= text.size()) return text;
  size_t end = bytes;
  while (end > 0 && is_continuation(text[end])) --end;
  for (size_t space = end; space > end / 2; --space) {
    if (is_space(text[space - 1])) return text.substr(0, space);
  }
  return text.substr(0, end);
}

size_t longest_prefix(int64_t tokens_needed) {
  return std::max<size_t>(size_t{64} << 10,
                          256 * static_cast<size_t>(std::max<int64_t>(tokens_needed, 0)));
}

PrefixEncoding encode_prefix(const SubwordTokenizer& tokenizer, std::string_view text,
                             int64_t tokens_needed) {
  // Tokens near a cut inside a word may differ from the whole text's: twice what is needed,
  // plus some, keeps the cut far from the tokens kept.
  const int64_t wanted = 2 * tokens_needed + 64;
  const size_t longest = longest_prefix(tokens_needed);
  for (size_t window = 4096;; window *= 4) {
    const std::string_view prefix = text_prefix(text, std::min(window, longest));
    PrefixEncoding result{tokenizer.encode(prefix), prefix.size() == text.size(), false};
    result.enough = text_tokens(result.encoding) > wanted;
    if (result.whole || result.enough || window >= longest) return result;
  }
}

}  // namespace tinyenc
