// BERT WordPiece against third-party expectations (shared test data, wordpiece/expected.json):
// torchtext's BERTTokenizer cases (lower-casing on and off, never_split) and llama.cpp's
// bert-bge vocabulary test (Hugging Face's tokenizer for BAAI/bge-small-en-v1.5). Every case in
// the file is checked; none is copied here.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tests/support/test_data.h"
#include "tokenizer/tokenizer_file.h"
#include "tokenizer/vocab_txt.h"
#include "tokenizer/wordpiece_tokenizer.h"

namespace tinyenc {
namespace {

// A tokenizer exactly as the reference configures it: BERT's basic tokenizer and WordPiece, the
// given lower-casing and never_split, no special-token splitting and no template.
std::unique_ptr<WordPieceTokenizer> reference_tokenizer(const std::filesystem::path& vocab_file,
                                                        bool lower_case,
                                                        std::vector<std::string> never_split) {
  WordPieceOptions options;
  options.normalize = bert_normalization(lower_case, std::nullopt);
  options.never_split = std::move(never_split);
  WordPieceVocab vocab =
      WordPieceVocab::from_lines(read_tokenizer_file(vocab_file), vocab_file.string());
  const SpecialTokenIds ids = find_special_ids(vocab, {});
  return std::make_unique<WordPieceTokenizer>(std::move(vocab), std::move(options), ids,
                                              plain_template(), vocab_file.string());
}

TEST(WordPieceConformance, TorchtextBertTokenizerCases) {
  TINYENC_REQUIRE_TESTDATA(testdata);
  const nlohmann::json expected = testing::read_json(testdata / "wordpiece/expected.json");
  const nlohmann::json& cases = expected.at("torchtext_bert").at("cases");
  ASSERT_EQ(cases.size(), 28u);
  int checked = 0;
  for (const nlohmann::json& item : cases) {
    const std::string text = item.at("text");
    const bool lower_case = item.at("do_lower_case");
    const auto never_split = item.at("never_split").get<std::vector<std::string>>();
    SCOPED_TRACE("text \"" + text + "\", do_lower_case " + std::to_string(lower_case) +
                 ", never_split " + item.at("never_split").dump());
    const auto tokenizer = reference_tokenizer(
        testdata / "wordpiece" / item.at("vocab").get<std::string>(), lower_case, never_split);
    const Encoding encoding = tokenizer->encode(text, false);
    EXPECT_EQ(encoding.tokens, item.at("tokens").get<std::vector<std::string>>());
    EXPECT_EQ(encoding.ids, item.at("ids").get<std::vector<int32_t>>());
    ++checked;
  }
  EXPECT_EQ(checked, 28);
}

TEST(WordPieceConformance, LlamaCppBertBgeCases) {
  TINYENC_REQUIRE_TESTDATA(testdata);
  const nlohmann::json expected = testing::read_json(testdata / "wordpiece/expected.json");
  const nlohmann::json& group = expected.at("llama_cpp_bert_bge");
  ASSERT_EQ(group.at("cases").size(), 46u);
  ASSERT_EQ(group.at("do_lower_case"), true);
  const auto tokenizer =
      reference_tokenizer(testdata / "wordpiece" / group.at("vocab").get<std::string>(), true, {});
  for (const nlohmann::json& item : group.at("cases")) {
    const std::string text = item.at("text");
    SCOPED_TRACE("case " + item.at("index").dump() + ": \"" + text + "\"");
    const Encoding encoding = tokenizer->encode(text, false);
    EXPECT_EQ(encoding.ids, item.at("ids").get<std::vector<int32_t>>());
    // Offsets are byte ranges of the input, in order, inside it.
    for (size_t i = 0; i < encoding.size(); ++i) {
      EXPECT_LE(encoding.offsets[i].begin, encoding.offsets[i].end);
      EXPECT_LE(encoding.offsets[i].end, text.size());
      if (i > 0) {
        EXPECT_LE(encoding.offsets[i - 1].begin, encoding.offsets[i].begin);
      }
    }
  }
}

}  // namespace
}  // namespace tinyenc
