#include "tokenizer/wordpiece_tokenizer.h"

#include <algorithm>
#include <bitset>
#include <stdexcept>
#include <utility>

#include "engine/io/quoted.h"
#include "engine/io/utf8.h"

namespace tinyenc {
namespace {

// A piece of the input: either an added token found verbatim, or text between them.
struct Segment {
  size_t begin = 0;
  size_t end = 0;
  bool added_token = false;
};

// Hugging Face's added-vocabulary split: leftmost match, the longest token when several start at
// the same byte.
std::vector<Segment> split_added_tokens(std::string_view text,
                                        const std::vector<std::string>& added_tokens) {
  // Only a byte that starts some added token needs the comparisons.
  std::bitset<256> starts;
  for (const std::string& token : added_tokens) starts.set(static_cast<unsigned char>(token[0]));
  std::vector<Segment> segments;
  size_t text_start = 0;
  for (size_t i = 0; i < text.size() && !added_tokens.empty();) {
    if (!starts.test(static_cast<unsigned char>(text[i]))) {
      ++i;
      continue;
    }
    size_t longest = 0;
    for (const std::string& token : added_tokens) {
      if (token.size() > longest && text.compare(i, token.size(), token) == 0) {
        longest = token.size();
      }
    }
    if (longest == 0) {
      ++i;
      continue;
    }
    if (text_start < i) segments.push_back({text_start, i, false});
    segments.push_back({i, i + longest, true});
    i += longest;
    text_start = i;
  }
  if (text_start < text.size()) segments.push_back({text_start, text.size(), false});
  return segments;
}

// Hugging Face tokenizers, decoders/wordpiece.rs `cleanup`.
std::string clean_up_spaces(std::string text) {
  static const std::pair<std::string_view, std::string_view> kReplacements[] = {
      {" .", "."},   {" ?", "?"},     {" !", "!"},    {" ,", ","},
      {" ' ", "'"},  {" n't", "n't"}, {" 'm", "'m"},  {" do not", " don't"},
      {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
  for (const auto& [from, to] : kReplacements) {
    std::string out;
    for (size_t start = 0;;) {
      const size_t found = text.find(from, start);
      out.append(text, start, found == std::string::npos ? std::string::npos : found - start);
      if (found == std::string::npos) break;
      out.append(to);
      start = found + from.size();
    }
    text = std::move(out);
  }
  return text;
}

}  // namespace

WordPieceTokenizer::WordPieceTokenizer(WordPieceVocab vocab, WordPieceOptions options,
                                       SpecialTokenIds special_ids,
                                       SpecialTemplate special_template, std::string source)
    : SubwordTokenizer(special_ids, std::move(special_template)),
      vocab_(std::move(vocab)),
      options_(std::move(options)),
      source_(std::move(source)) {
  const auto unk = vocab_.find(options_.unk_token);
  if (!unk) {
    throw std::invalid_argument(source_ + ": the unknown token " + in_quotes(options_.unk_token) +
                                " is not in the vocabulary");
  }
  unk_id_ = *unk;
  // Empty added tokens would match everywhere; they mean nothing.
  std::erase(options_.added_tokens, std::string());
}

Encoding WordPieceTokenizer::encode_text(std::string_view text) const {
  Encoding out;
  for (const Segment& segment : split_added_tokens(text, options_.added_tokens)) {
    const std::string_view piece = text.substr(segment.begin, segment.end - segment.begin);
    if (segment.added_token) {
      append_whole(std::string(piece), {segment.begin, segment.end}, out);
    } else {
      encode_segment(piece, segment.begin, out);
    }
  }
  return out;
}

void WordPieceTokenizer::encode_segment(std::string_view text, size_t base, Encoding& out) const {
  AlignedText aligned = align_code_points(text, base);
  normalize_text(options_.normalize, options_.never_split, aligned);
  for (const WordRange& word : split_words(aligned, options_.split, options_.never_split)) {
    if (word.verbatim) {
      append_whole(utf8_of(aligned, word.first, word.last), span_of(aligned, word.first, word.last),
                   out);
    } else {
      encode_word(aligned, word, out);
    }
  }
}

void WordPieceTokenizer::append_whole(std::string token, TokenSpan span, Encoding& out) const {
  const int32_t id = vocab_.find(token).value_or(unk_id_);
  out.append(id == unk_id_ ? options_.unk_token : std::move(token), id, 0, TokenSource::kFirst,
             span);
}

// Greedy longest-match-first (BERT WordpieceTokenizer.tokenize): from the start of the word take
// the longest prefix in the vocabulary, then the longest "##"-prefixed continuation, and so on;
// if some position has no match at all, the whole word is one [UNK].
void WordPieceTokenizer::encode_word(const AlignedText& text, const WordRange& word,
                                     Encoding& out) const {
  const size_t length = word.last - word.first;
  if (length > options_.max_input_chars_per_word) {
    out.append(options_.unk_token, unk_id_, 0, TokenSource::kFirst,
               span_of(text, word.first, word.last));
    return;
  }
  // UTF-8 of the word and the byte where each of its characters starts.
  std::string bytes;
  std::vector<size_t> char_start;
  for (size_t i = word.first; i < word.last; ++i) {
    char_start.push_back(bytes.size());
    append_utf8(text[i].code_point, bytes);
  }
  char_start.push_back(bytes.size());

  const size_t pieces_before = out.size();
  std::string candidate;
  for (size_t start = 0; start < length;) {
    std::optional<int32_t> match;
    // Start from the longest piece that could be in the vocabulary at all, which keeps a long
    // word (with a generous max_input_chars_per_word) from costing length² lookups.
    const size_t prefix = start > 0 ? options_.continuing_prefix.size() : 0;
    const size_t max_bytes =
        vocab_.longest_token_bytes() > prefix ? vocab_.longest_token_bytes() - prefix : 0;
    size_t end =
        static_cast<size_t>(std::upper_bound(char_start.begin() + static_cast<ptrdiff_t>(start),
                                             char_start.end(), char_start[start] + max_bytes) -
                            char_start.begin() - 1);
    for (; end > start; --end) {
      candidate.assign(start > 0 ? options_.continuing_prefix : "");
      candidate.append(bytes, char_start[start], char_start[end] - char_start[start]);
      if ((match = vocab_.find(candidate))) break;
    }
    if (!match) {
      // Undo the pieces of this word found so far: the word is unknown as a whole.
      out.tokens.resize(pieces_before);
      out.ids.resize(pieces_before);
      out.token_type_ids.resize(pieces_before);
      out.sources.resize(pieces_before);
      out.offsets.resize(pieces_before);
      out.append(options_.unk_token, unk_id_, 0, TokenSource::kFirst,
                 span_of(text, word.first, word.last));
      return;
    }
    out.append(candidate, *match, 0, TokenSource::kFirst,
               span_of(text, word.first + start, word.first + end));
    start = end;
  }
}

std::string WordPieceTokenizer::decode(std::span<const int32_t> ids) const {
  const SpecialTokenIds& special = special_ids();
  std::string text;
  bool first = true;
  for (int32_t id : ids) {
    check_id(id);
    if (id == special.cls || id == special.sep || id == special.pad) continue;
    const std::string& token = vocab_.token(id);
    const std::string& prefix = options_.continuing_prefix;
    if (!first && !prefix.empty() && token.starts_with(prefix)) {
      text.append(token, prefix.size());
    } else {
      if (!first) text += ' ';
      text += token;
    }
    first = false;
  }
  return clean_up_spaces(std::move(text));
}

std::optional<int32_t> WordPieceTokenizer::token_to_id(std::string_view token) const {
  return vocab_.find(token);
}

std::string WordPieceTokenizer::id_to_token(int32_t id) const {
  check_id(id);
  return vocab_.token(id);
}

std::string WordPieceTokenizer::describe() const {
  std::string steps;
  for (NormalizeStep step : options_.normalize) {
    steps += (steps.empty() ? "" : ", ") + std::string(step_name(step));
  }
  return "WordPiece, " + std::to_string(vocab_size()) + " tokens, from " + source_ +
         "; normalize: " + (steps.empty() ? "none" : steps) +
         "; split: " + std::string(split_name(options_.split)) +
         "; template: " + describe_template(special_template(), false);
}

SpecialTokenIds find_special_ids(const WordPieceVocab& vocab, const SpecialTokenNames& names) {
  SpecialTokenIds ids;
  ids.pad = vocab.find(names.pad);
  ids.unk = vocab.find(names.unk);
  ids.cls = vocab.find(names.cls);
  ids.sep = vocab.find(names.sep);
  ids.mask = vocab.find(names.mask);
  return ids;
}

}  // namespace tinyenc
