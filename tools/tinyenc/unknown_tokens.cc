#include "unknown_tokens.h"

#include <tinyenc/text.h>

#include <cstdio>

namespace tinyenc::cli {
namespace {

// Words the warning names before it says "and N more": one line stays readable.
constexpr size_t kWordsNamed = 12;

}  // namespace

UnknownToken UnknownToken::of(const Tokenizer& tokenizer) {
  UnknownToken unknown;
  unknown.id = tokenizer.unk_token_id();
  unknown.piece = tokenizer.unk_token();
  return unknown;
}

std::vector<size_t> unknown_positions(const Encoding& encoding, const UnknownToken& unknown) {
  std::vector<size_t> positions;
  if (!unknown.id) return positions;
  for (size_t t = 0; t < encoding.size(); ++t) {
    if (encoding.ids[t] == *unknown.id && encoding.sources[t] != TokenSource::kSpecial) {
      positions.push_back(t);
    }
  }
  return positions;
}

std::string token_source(const Encoding& encoding, size_t t, std::string_view first,
                         std::string_view second) {
  const TokenSpan span = encoding.offsets[t];
  std::string_view text;
  if (encoding.sources[t] == TokenSource::kFirst) text = first;
  if (encoding.sources[t] == TokenSource::kSecond) text = second;
  if (span.begin >= span.end || span.end > text.size()) return "";
  std::string_view source = text.substr(span.begin, span.end - span.begin);
  // sentencepiece's pieces carry the space before a word ("▁he" covers " he"): not the word's.
  while (!source.empty() && (source.front() == ' ' || source.front() == '\t')) {
    source.remove_prefix(1);
  }
  while (!source.empty() && (source.back() == ' ' || source.back() == '\t'))
    source.remove_suffix(1);
  return std::string(source);
}

std::string unknown_marker(std::string_view source, std::string_view piece) {
  std::string marker = "\u27e8unk:";
  marker += source.empty() ? piece : source;
  return marker + "\u27e9";
}

std::vector<std::string> marked_tokens(const Encoding& encoding, const std::vector<size_t>& unknown,
                                       std::string_view first, std::string_view second) {
  std::vector<std::string> tokens = encoding.tokens;
  for (size_t t : unknown) {
    tokens[t] = unknown_marker(token_source(encoding, t, first, second), encoding.tokens[t]);
  }
  return tokens;
}

void UnknownTally::add(const std::vector<std::string>& sources) {
  ++texts_;
  if (sources.empty()) return;
  ++texts_with_unknown_;
  tokens_ += sources.size();
  for (const std::string& source : sources) {
    if (seen_.insert(source).second) words_.push_back(source);
  }
}

std::string UnknownTally::message(const UnknownToken& unknown) const {
  if (tokens_ == 0) return "";
  // Built by appending: GCC 12 warns falsely about "literal" + string (GCC bug 105329).
  std::string out = std::to_string(tokens_);
  out.append(tokens_ == 1 ? " token in " : " tokens in ");
  out.append(std::to_string(texts_with_unknown_));
  out.append(" of ");
  out.append(std::to_string(texts_));
  out.append(texts_ == 1 ? " text" : " texts");
  out.append(" unknown to the vocabulary (");
  out.append(unknown.piece);
  if (unknown.id) {
    out.append(", id ");
    out.append(std::to_string(*unknown.id));
  }
  out.append("):");
  for (size_t w = 0; w < words_.size() && w < kWordsNamed; ++w) {
    out.push_back(' ');
    out.append(in_quotes(words_[w].empty() ? unknown.piece : words_[w]));
  }
  if (words_.size() > kWordsNamed) {
    out.append(" and ");
    out.append(std::to_string(words_.size() - kWordsNamed));
    out.append(" more");
  }
  out.append("; the model sees them all as one token, so what it says of them is a guess");
  return out;
}

void UnknownTally::warn(const UnknownToken& unknown, const std::string& prefix) const {
  const std::string text = message(unknown);
  if (!text.empty()) std::fprintf(stderr, "tinyenc: warning: %s%s\n", prefix.c_str(), text.c_str());
}

}  // namespace tinyenc::cli
