// libFuzzer target: arbitrary bytes through WordPiece. The first byte is a set of switches, the
// rest is cut at 0 bytes:
//   mode (low two bits) 0: text [\0 second text], encoded with a fixed BERT vocabulary
//                       1: vocab.txt \0 text [\0 second text]
//                       2: tokenizer.json \0 text [\0 second text]
//   0x04 lower-case (modes 0, 1)   0x08 encode as a pair   0x10 add special tokens
//   0x20 never_split "[UNK]" and "Hello" (mode 0)
// Allowed outcomes: an Encoding that keeps its promises (parallel arrays, ids inside the
// vocabulary, offsets inside the text they point into, pieces spelled as the vocabulary spells
// them, decodable), or std::invalid_argument (invalid UTF-8, a bad vocabulary file). Anything else
// (another exception, a crash, a sanitizer report, a leak, a hang) is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "tokenizer/tokenizer_json.h"
#include "tokenizer/vocab_txt.h"
#include "tokenizer/wordpiece_tokenizer.h"

namespace {

using namespace tinyenc;

constexpr char kVocab[] =
    "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n!\n,\n.\n?\n'\n[\n]\n$\na\nb\nc\ne\nh\ni\nl\no\ns\nt\nu\n"
    "##a\n##b\n##c\n##e\n##h\n##i\n##l\n##o\n##s\n##t\n##u\nthe\nhello\nhell\n##o\nworld\nun\n"
    "##aff\n##able\n##ing\ntest\ncafe\nistanbul\n我\n你\n打\nσ\nς\nοδος\n##ς\n日本\n";

std::string_view next_part(std::string_view& rest) {
  const size_t end = rest.find('\0');
  const std::string_view part = rest.substr(0, end);
  rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
  return part;
}

[[noreturn]] void broken_promise(const char* what) {
  std::fprintf(stderr, "tokenizer_wordpiece_fuzz: %s\n", what);
  std::abort();
}

void check(const SubwordTokenizer& tokenizer, const Encoding& encoding, std::string_view first,
           std::string_view second) {
  const size_t n = encoding.ids.size();
  if (encoding.tokens.size() != n || encoding.token_type_ids.size() != n ||
      encoding.sources.size() != n || encoding.offsets.size() != n) {
    broken_promise("arrays of different lengths");
  }
  for (size_t i = 0; i < n; ++i) {
    const int32_t id = encoding.ids[i];
    if (id < 0 || id >= tokenizer.vocab_size()) broken_promise("id outside the vocabulary");
    const TokenSpan span = encoding.offsets[i];
    if (span.begin > span.end) broken_promise("offset begin after end");
    switch (encoding.sources[i]) {
      case TokenSource::kFirst:
        if (span.end > first.size()) broken_promise("offset past the first text");
        break;
      case TokenSource::kSecond:
        if (span.end > second.size()) broken_promise("offset past the second text");
        break;
      case TokenSource::kSpecial:
        continue;
    }
    if (tokenizer.id_to_token(id) != encoding.tokens[i]) broken_promise("piece is not its id's");
  }
  tokenizer.decode(encoding.ids);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const unsigned switches = data[0];
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  const unsigned mode = switches & 3;
  const bool lower_case = switches & 0x04, pair = switches & 0x08, specials = switches & 0x10;

  std::unique_ptr<SubwordTokenizer> tokenizer;
  try {
    TokenizerConfig config;
    config.do_lower_case = lower_case;
    if (mode == 0) {
      if (switches & 0x20) config.never_split = {"[UNK]", "Hello"};
      tokenizer = wordpiece_from_vocab_txt(kVocab, "fuzz/vocab.txt", config);
    } else if (mode == 1) {
      tokenizer = wordpiece_from_vocab_txt(next_part(rest), "fuzz/vocab.txt", config);
    } else {
      tokenizer = wordpiece_from_tokenizer_json(next_part(rest), "fuzz/tokenizer.json");
    }
  } catch (const std::invalid_argument& error) {
    if (std::string_view(error.what()).rfind("fuzz/", 0) != 0) broken_promise(error.what());
    return 0;
  }

  const std::string_view first = next_part(rest);
  const std::string_view second = pair ? next_part(rest) : std::string_view();
  try {
    const Encoding encoding =
        pair ? tokenizer->encode_pair(first, second, specials) : tokenizer->encode(first, specials);
    check(*tokenizer, encoding, first, second);
  } catch (const std::invalid_argument& error) {
    if (std::string_view(error.what()).find("invalid UTF-8 at byte") == std::string_view::npos) {
      broken_promise(error.what());
    }
  }
  return 0;
}
