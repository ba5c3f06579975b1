// libFuzzer target: arbitrary bytes as text for the sentencepiece models of the shared test data
// (TINYENC_TESTDATA, default ../shared/testdata beside the checkout; the target prints SKIPPED
// and exits when they are absent). The first byte picks the model (low two bits), whether to
// encode a pair (0x04, the texts cut at the first 0 byte) and whether to add the template's
// special tokens (0x08).
// Allowed outcomes: an Encoding that keeps its promises (parallel arrays, ids inside the
// vocabulary, offsets inside the text they point into, decodable), or std::invalid_argument for
// invalid UTF-8. Anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/load_tokenizer.h"

namespace {

using namespace tinyenc;

std::vector<std::unique_ptr<SubwordTokenizer>>& models() {
  static std::vector<std::unique_ptr<SubwordTokenizer>> loaded;
  return loaded;
}

[[noreturn]] void broken_promise(const char* what) {
  std::fprintf(stderr, "tokenizer_sentencepiece_fuzz: %s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* configured = std::getenv("TINYENC_TESTDATA");
  const std::filesystem::path testdata =
      configured && *configured ? configured : TINYENC_DEFAULT_TESTDATA;
  for (const char* model : {"sentencepiece/test_model.model", "sentencepiece/test_ja_model.model",
                            "t5/t5_tokenizer_base.model", "t5/spm_example.model"}) {
    if (!std::filesystem::is_regular_file(testdata / model)) {
      std::printf("tokenizer_sentencepiece_fuzz: SKIPPED: %s not found (set TINYENC_TESTDATA)\n",
                  (testdata / model).c_str());
      std::exit(0);
    }
    models().push_back(load_tokenizer_file(testdata / model));
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const unsigned switches = data[0];
  const SubwordTokenizer& tokenizer = *models()[switches & 3];
  const bool pair = switches & 0x04, specials = switches & 0x08;
  std::string_view first(reinterpret_cast<const char*>(data) + 1, size - 1), second;
  if (pair) {
    const size_t cut = first.find('\0');
    second = cut == std::string_view::npos ? std::string_view() : first.substr(cut + 1);
    first = first.substr(0, cut);
  }
  try {
    const Encoding encoding =
        pair ? tokenizer.encode_pair(first, second, specials) : tokenizer.encode(first, specials);
    const size_t n = encoding.ids.size();
    if (encoding.tokens.size() != n || encoding.token_type_ids.size() != n ||
        encoding.sources.size() != n || encoding.offsets.size() != n) {
      broken_promise("arrays of different lengths");
    }
    for (size_t i = 0; i < n; ++i) {
      if (encoding.ids[i] < 0 || encoding.ids[i] >= tokenizer.vocab_size()) {
        broken_promise("id outside the vocabulary");
      }
      const TokenSpan span = encoding.offsets[i];
      const size_t limit =
          encoding.sources[i] == TokenSource::kSecond ? second.size() : first.size();
      if (span.begin > span.end || span.end > limit) broken_promise("offset outside the text");
    }
    tokenizer.decode(encoding.ids);
  } catch (const std::invalid_argument& error) {
    if (std::string_view(error.what()).find("invalid UTF-8 at byte") == std::string_view::npos) {
      broken_promise(error.what());
    }
  }
  return 0;
}
