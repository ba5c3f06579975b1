// sentencepiece models against third-party expectations (shared test data):
// sentencepiece/expected.json (google/sentencepiece's own test models) and t5/expected.json
// (torchtext's T5 transform). Every case in the files that a plain encode/decode can check is
// checked; the cases that need sampling, n-best lists or a modified normalizer spec are counted
// and left out on purpose.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tests/support/test_data.h"
#include "tokenizer/load_tokenizer.h"
#include "tokenizer/sentencepiece_tokenizer.h"

namespace tinyenc {
namespace {

using Ids = std::vector<int32_t>;
using Pieces = std::vector<std::string>;

class ModelCache {
 public:
  explicit ModelCache(std::filesystem::path folder) : folder_(std::move(folder)) {}
  const SubwordTokenizer& operator[](const std::string& name) {
    auto& slot = models_[name];
    if (!slot) slot = load_tokenizer_file(folder_ / name);
    return *slot;
  }

 private:
  std::filesystem::path folder_;
  std::map<std::string, std::unique_ptr<SubwordTokenizer>> models_;
};

std::optional<int32_t> expected_id(const nlohmann::json& value) {
  const int id = value.get<int>();
  return id >= 0 ? std::optional<int32_t>(id) : std::nullopt;
}

void check_models(const nlohmann::json& models, ModelCache& cache) {
  for (const auto& [name, model] : models.items()) {
    SCOPED_TRACE(name);
    const SubwordTokenizer& tokenizer = cache[name];
    EXPECT_EQ(tokenizer.vocab_size(), model.at("piece_size").get<int32_t>());
    EXPECT_EQ(tokenizer.special_ids().unk, expected_id(model.at("unk_id")));
    EXPECT_EQ(tokenizer.special_ids().cls, expected_id(model.at("bos_id")));
    EXPECT_EQ(tokenizer.special_ids().sep, expected_id(model.at("eos_id")));
    EXPECT_EQ(tokenizer.special_ids().pad, expected_id(model.at("pad_id")));
    if (model.contains("id_to_piece")) {
      for (const auto& [id, piece] : model.at("id_to_piece").items()) {
        EXPECT_EQ(tokenizer.id_to_token(std::stoi(id)), piece.get<std::string>());
        EXPECT_EQ(tokenizer.token_to_id(piece.get<std::string>()), std::stoi(id));
      }
    }
  }
}

TEST(SentencePieceConformance, ModelFacts) {
  TINYENC_REQUIRE_TESTDATA(testdata);
  ModelCache sentencepiece_models(testdata / "sentencepiece");
  check_models(testing::read_json(testdata / "sentencepiece/expected.json").at("models"),
               sentencepiece_models);
  ModelCache t5_models(testdata / "t5");
  check_models(testing::read_json(testdata / "t5/expected.json").at("models"), t5_models);
}

TEST(SentencePieceConformance, EncodeIdsPiecesAndOffsets) {
  TINYENC_REQUIRE_TESTDATA(testdata);
  const nlohmann::json expected = testing::read_json(testdata / "sentencepiece/expected.json");
  ModelCache models(testdata / "sentencepiece");
  int checked = 0;
  for (const nlohmann::json& item : expected.at("encode")) {
    const std::string text = item.at("text");
    SCOPED_TRACE("\"" + text + "\"");
    const SubwordTokenizer& tokenizer = models[item.at("model")];
    const Encoding encoding = tokenizer.encode(text, false);
    EXPECT_EQ(encoding.ids, item.at("ids").get<Ids>());
    EXPECT_EQ(encoding.tokens, item.at("pieces").get<Pieces>());
    if (item.contains("begin")) {
      const auto begin = item.at("begin").get<std::vector<size_t>>();
      const auto end = item.at("end").get<std::vector<size_t>>();
      ASSERT_EQ(encoding.offsets.size(), begin.size());
      const auto surfaces = item.at("surfaces").get<Pieces>();
      for (size_t i = 0; i < begin.size(); ++i) {
        EXPECT_EQ(encoding.offsets[i], (TokenSpan{begin[i], end[i]})) << "token " << i;
        EXPECT_EQ(text.substr(begin[i], end[i] - begin[i]), surfaces[i]);
      }
    }
    if (item.contains("decode_text")) {
      EXPECT_EQ(tokenizer.decode(encoding.ids), item.at("decode_text").get<std::string>());
    }
    ++checked;
  }
  EXPECT_EQ(checked, 4);
}

TEST(SentencePieceConformance, DecodeIdsAndPieces) {
  TINYENC_REQUIRE_TESTDATA(testdata);
  const nlohmann::json expected = testing::read_json(testdata / "sentencepiece/expected.json");
  ModelCache models(testdata / "sentencepiece");
  for (const nlohmann::json& item : expected.at("decode")) {
    SCOPED_TRACE(item.dump());
    const SubwordTokenizer& tokenizer = models[item.at("model")];
    Ids ids;
    if (item.contains("ids")) {
      ids = item.at("ids").get<Ids>();
    } else {
      for (const std::string& piece : item.at("pieces").get<Pieces>()) {
        const auto id = tokenizer.token_to_id(piece);
        ASSERT_TRUE(id.has_value()) << piece;
        ids.push_back(*id);
      }
    }
    EXPECT_EQ(tokenizer.decode(ids), item.at("text").get<std::string>());
  }
}

TEST(SentencePieceConformance, BosAndEosTemplate) {
  TINYENC_REQUIRE_TESTDATA(testdata);
  const nlohmann::json expected = testing::read_json(testdata / "sentencepiece/expected.json");
  ModelCache models(testdata / "sentencepiece");
  for (const nlohmann::json& item : expected.at("bos_eos_reverse")) {
    const SubwordTokenizer& tokenizer = models[item.at("model")];
    const std::string text = item.at("text");
    EXPECT_EQ(tokenizer.encode(text, false).ids, item.at("ids").get<Ids>());
    // `<s> a </s>`: the bos of ids_add_bos, then the ids, then the eos of ids_add_eos.
    Ids with_both = item.at("ids_add_bos").get<Ids>();
    with_both.push_back(item.at("ids_add_eos").back().get<int32_t>());
    const Encoding encoding = tokenizer.encode(text);
    EXPECT_EQ(encoding.ids, with_both);
    EXPECT_EQ(encoding.sources.front(), TokenSource::kSpecial);
    EXPECT_EQ(encoding.sources.back(), TokenSource::kSpecial);
    EXPECT_EQ(tokenizer.decode(encoding.ids), text);
  }
}

TEST(SentencePieceConformance, NormalizedPieces) {
  TINYENC_REQUIRE_TESTDATA(testdata);
  const nlohmann::json expected = testing::read_json(testdata / "sentencepiece/expected.json");
  ModelCache models(testdata / "sentencepiece");
  int checked = 0, needs_modified_spec = 0;
  for (const nlohmann::json& item : expected.at("normalize")) {
    if (item.contains("normalizer_spec_overrides")) {
      ++needs_modified_spec;  // the model's own normalizer spec is what tinyenc runs
      continue;
    }
    const std::string text = item.at("text");
    SCOPED_TRACE(text);
    std::string joined;
    for (const std::string& piece : models[item.at("model")].encode(text, false).tokens) {
      joined += piece;
    }
    EXPECT_EQ(joined, item.at("normalized").get<std::string>());
    ++checked;
  }
  EXPECT_EQ(checked, 2);
  EXPECT_EQ(needs_modified_spec, 3);
}

TEST(SentencePieceConformance, RoundTripCases) {
  TINYENC_REQUIRE_TESTDATA(testdata);
  const nlohmann::json expected = testing::read_json(testdata / "sentencepiece/expected.json");
  ModelCache models(testdata / "sentencepiece");
  const nlohmann::json& cases = expected.at("round_trip_observed").at("cases");
  ASSERT_EQ(cases.size(), 7u);
  for (const nlohmann::json& item : cases) {
    const std::string text = item.at("text");
    SCOPED_TRACE(text);
    const SubwordTokenizer& tokenizer = models[item.at("model")];
    const Encoding encoding = tokenizer.encode(text, false);
    EXPECT_EQ(encoding.ids, item.at("ids").get<Ids>());
    EXPECT_EQ(encoding.tokens, item.at("pieces").get<Pieces>());
    EXPECT_EQ(tokenizer.decode(encoding.ids), text);
    // Each token's bytes are what its piece spells (the ▁ standing for a space), so the offsets
    // are byte offsets into the UTF-8 input even for Japanese.
    for (size_t i = 0; i < encoding.size(); ++i) {
      const std::string& piece = encoding.tokens[i];
      const TokenSpan span = encoding.offsets[i];
      std::string spelled;  // the piece with ▁ as a space, or as nothing at the very start
      for (size_t at = 0; at < piece.size();) {
        if (piece.compare(at, 3, "\xE2\x96\x81") == 0) {
          if (span.begin != 0) spelled += ' ';
          at += 3;
        } else {
          spelled += piece[at++];
        }
      }
      EXPECT_EQ(text.substr(span.begin, span.end - span.begin), spelled) << "token " << i;
    }
  }
}

TEST(SentencePieceConformance, T5IdsWithEosAndDecode) {
  TINYENC_REQUIRE_TESTDATA(testdata);
  const nlohmann::json expected = testing::read_json(testdata / "t5/expected.json");
  ModelCache models(testdata / "t5");
  int encoded = 0, decoded = 0;
  for (const nlohmann::json& item : expected.at("cases")) {
    SCOPED_TRACE(item.dump());
    const SubwordTokenizer& tokenizer = models[item.at("model")];
    if (item.contains("decode_ids")) {
      EXPECT_EQ(tokenizer.decode(item.at("decode_ids").get<Ids>()),
                item.at("text").get<std::string>());
      ++decoded;
      continue;
    }
    const std::string text = item.at("text");
    const Encoding plain = tokenizer.encode(text, false);
    EXPECT_EQ(plain.ids, item.at("ids").get<Ids>());
    EXPECT_EQ(plain.tokens, item.at("pieces").get<Pieces>());
    if (item.contains("ids_with_eos")) {
      // T5 has eos and no bos: its template is `a </s>`.
      EXPECT_EQ(tokenizer.encode(text).ids, item.at("ids_with_eos").get<Ids>());
    }
    ++encoded;
  }
  EXPECT_EQ(encoded, 3);
  EXPECT_EQ(decoded, 1);
}

}  // namespace
}  // namespace tinyenc
