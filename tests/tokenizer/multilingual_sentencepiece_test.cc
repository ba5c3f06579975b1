// tinyenc's sentencepiece path against Debian's python3-sentencepiece on a committed multilingual
// text (Chinese, Japanese, Korean, accents, emoji, odd whitespace...). The expected numbers come
// from tools/golden/sentencepiece_ids.py; the models from the shared test data.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/test_data.h"
#include "tokenizer/load_tokenizer.h"

namespace tinyenc {
namespace {

std::vector<std::string> read_lines(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(MultilingualSentencePiece, MatchesPythonSentencePiece) {
  TINYENC_REQUIRE_TESTDATA(testdata);
  const std::filesystem::path folder = testing::source_dir() / "tests/tokenizer";
  const std::vector<std::string> lines = read_lines(folder / "multilingual.txt");
  const nlohmann::json expected = testing::read_json(folder / "multilingual_expected.json");
  ASSERT_GE(lines.size(), 20u);
  ASSERT_EQ(expected.at("models").size(), 4u);

  for (const auto& [model, cases] : expected.at("models").items()) {
    SCOPED_TRACE(model);
    const auto tokenizer = load_tokenizer_file(testdata / model);
    ASSERT_EQ(cases.size(), lines.size()) << "regenerate with tools/golden/sentencepiece_ids.py";
    for (size_t i = 0; i < lines.size(); ++i) {
      const nlohmann::json& item = cases[i];
      SCOPED_TRACE("line " + std::to_string(i + 1) + ": " + lines[i]);
      ASSERT_EQ(item.at("text").get<std::string>(), lines[i]) << "stale multilingual_expected.json";
      const Encoding encoding = tokenizer->encode(lines[i], false);
      EXPECT_EQ(encoding.ids, item.at("ids").get<std::vector<int32_t>>());
      EXPECT_EQ(encoding.tokens, item.at("pieces").get<std::vector<std::string>>());
      std::vector<std::vector<size_t>> offsets;
      for (const TokenSpan& span : encoding.offsets) offsets.push_back({span.begin, span.end});
      EXPECT_EQ(offsets, item.at("offsets").get<std::vector<std::vector<size_t>>>());
      EXPECT_EQ(tokenizer->decode(encoding.ids), item.at("decoded").get<std::string>());
    }
  }
}

}  // namespace
}  // namespace tinyenc
