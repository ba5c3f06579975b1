// The shipped "who did it?" models (models/pretrained/order-*, made by models/train/): six
// encoders that differ only in their position encoding, each loaded from its folder the way
// `tinyenc run` loads it and run on the held-out sentences PyTorch saw (heldout_golden.json).
// Checked: the tokenizer gives PyTorch's ids, the text between <s> and </s>; logits within
// float rounding of PyTorch's (tests/support/float_tolerance.h); the same prediction for every
// sentence, hence the same accuracy per construction and the same swapped-pair table; swapped
// sentences tokenize to the same <s> and </s> around permutations of each other's tokens; and the
// order-blind baseline (mean pooling, no PE) gives both sentences of such a pair the same output.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "engine/encoder.h"
#include "models/model.h"
#include "tests/support/float_tolerance.h"
#include "tests/support/test_data.h"
#include "tokenizer/load_tokenizer.h"

namespace tinyenc {
namespace {

const std::vector<std::string> kModels = {"order-none", "order-sinusoidal", "order-learned",
                                          "order-rope", "order-alibi",      "order-relative"};
// Those with a position encoding.
const std::vector<std::string> kPositionEncodedModels = {
    "order-sinusoidal", "order-learned", "order-rope", "order-alibi", "order-relative"};

std::filesystem::path model_dir(const std::string& name) {
  return testing::source_dir() / "models" / "pretrained" / name;
}

struct GoldenSentence {
  std::string text;
  std::vector<int32_t> ids;
  int64_t label = 0;
  std::string construction;
  std::string pair;
  std::vector<float> logits;
};

// One model folder, loaded once for all the tests that use it.
struct ShippedModel {
  LoadedModel model;
  std::unique_ptr<SubwordTokenizer> tokenizer;
  nlohmann::json golden;
  std::vector<GoldenSentence> sentences;  // swapped pairs: sentences 2k and 2k + 1
  std::vector<float> engine_logits;       // [sentences, labels], from the engine
  int64_t labels = 0;
  // How far float rounding may move the logits: tests/support/float_tolerance.h's encoder bound
  // at the largest sum the classifier adds up (its rows' |weights| summed, about 8, times the
  // largest hidden value).
  double logit_bound = 0.0;
};

// Runs every sentence (its ids from the engine's own tokenizer) in one padded batch.
EncoderOutput run_batch(Encoder& encoder, const std::vector<std::vector<int32_t>>& rows) {
  size_t seq = 0;
  for (const auto& row : rows) seq = std::max(seq, row.size());
  std::vector<int32_t> ids(rows.size() * seq, 0);
  std::vector<int32_t> lengths;
  for (size_t b = 0; b < rows.size(); ++b) {
    std::copy(rows[b].begin(), rows[b].end(), ids.begin() + static_cast<int64_t>(b * seq));
    lengths.push_back(static_cast<int32_t>(rows[b].size()));
  }
  EncoderInput input{static_cast<int64_t>(rows.size()), static_cast<int64_t>(seq), ids.data(),
                     lengths.data(), nullptr};
  return encoder.forward(input);
}

const ShippedModel& shipped(const std::string& name) {
  static std::map<std::string, std::unique_ptr<ShippedModel>> cache;
  std::unique_ptr<ShippedModel>& entry = cache[name];
  if (entry) return *entry;
  auto loaded = std::make_unique<ShippedModel>();
  const std::filesystem::path dir = model_dir(name);
  loaded->model = load_model(dir);
  loaded->tokenizer = load_tokenizer_from_folder(dir);
  loaded->golden = testing::read_json(dir / "heldout_golden.json");
  loaded->labels = loaded->model.config.encoder.num_labels;
  std::vector<std::vector<int32_t>> rows;
  for (const auto& item : loaded->golden["sentences"]) {
    GoldenSentence sentence;
    sentence.text = item["text"].get<std::string>();
    sentence.ids = item["ids"].get<std::vector<int32_t>>();
    sentence.label = item["label"].get<int64_t>();
    sentence.construction = item["construction"].get<std::string>();
    sentence.pair = item["pair"].get<std::string>();
    sentence.logits = item["logits"].get<std::vector<float>>();
    rows.push_back(loaded->tokenizer->encode(sentence.text).ids);
    loaded->sentences.push_back(std::move(sentence));
  }
  const EncoderConfig& config = loaded->model.config.encoder;
  Encoder encoder(config, loaded->model.weights);
  const EncoderOutput output = run_batch(encoder, rows);
  loaded->engine_logits = output.logits;
  double largest_hidden = 0.0;
  for (size_t b = 0; b < rows.size(); ++b) {
    largest_hidden = std::max(
        largest_hidden,
        testing::largest_magnitude(output.last_hidden.data() + b * output.seq * config.d_model,
                                   static_cast<int64_t>(rows[b].size()) * config.d_model));
  }
  loaded->logit_bound = testing::encoder_rounding_bound(
      testing::linear_sum_magnitude(loaded->model.weights.classifier.weight, config.num_labels,
                                    config.d_model, largest_hidden),
      config.layers);
  entry = std::move(loaded);
  return *entry;
}

int64_t argmax(const float* values, int64_t count) {
  return std::max_element(values, values + count) - values;
}

bool is_permutation_of(std::vector<int32_t> a, std::vector<int32_t> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a == b;
}

// The ids between the first and the last (<s> and </s>): the text's own tokens.
std::vector<int32_t> inner(const std::vector<int32_t>& ids) {
  if (ids.size() < 2) return {};
  return std::vector<int32_t>(ids.begin() + 1, ids.end() - 1);
}

// The swapped-pair kinds models/train/train_order_model.py counts: all; the construction;
// "permutation" (the same tokens in another order) or "marked" (English pronoun case or
// was/were differ); "mirror" (the text's tokens of one are the other's reversed).
std::vector<std::string> pair_kinds(const std::vector<int32_t>& a, const std::vector<int32_t>& b,
                                    const std::string& construction) {
  std::vector<std::string> kinds = {"all", construction};
  kinds.push_back(is_permutation_of(a, b) ? "permutation" : "marked");
  const std::vector<int32_t> text_a = inner(a), text_b = inner(b);
  if (std::equal(text_a.begin(), text_a.end(), text_b.rbegin(), text_b.rend())) {
    kinds.push_back("mirror");
  }
  return kinds;
}

class PretrainedOrderModel : public ::testing::TestWithParam<std::string> {};

TEST_P(PretrainedOrderModel, TokenizesAsInTrainingBetweenSentenceMarks) {
  const ShippedModel& shipped_model = shipped(GetParam());
  const SubwordTokenizer& tokenizer = *shipped_model.tokenizer;
  // The training script's sentencepiece model: <pad> 0, <unk> 1, <s> 2, </s> 3.
  EXPECT_EQ(tokenizer.special_ids().pad, 0);
  EXPECT_EQ(tokenizer.special_ids().unk, 1);
  EXPECT_EQ(tokenizer.special_ids().cls, 2);
  EXPECT_EQ(tokenizer.special_ids().sep, 3);
  EXPECT_EQ(tokenizer.vocab_size(), shipped_model.model.config.encoder.vocab_size);
  ASSERT_GT(shipped_model.sentences.size(), 200u);
  for (const GoldenSentence& sentence : shipped_model.sentences) {
    const Encoding encoding = tokenizer.encode(sentence.text);
    EXPECT_EQ(encoding.ids, sentence.ids) << sentence.text;
  }
  const Encoding encoding = tokenizer.encode("我打你");
  EXPECT_EQ(encoding.tokens, (std::vector<std::string>{"<s>", "我", "打", "你", "</s>"}));
  EXPECT_EQ(encoding.sources, (std::vector<TokenSource>{TokenSource::kSpecial, TokenSource::kFirst,
                                                        TokenSource::kFirst, TokenSource::kFirst,
                                                        TokenSource::kSpecial}));
  EXPECT_EQ(tokenizer.encode("我打你", false).tokens, (std::vector<std::string>{"我", "打", "你"}));
  // Lexicon words are one piece each, so they move as one unit; their characters are pieces too.
  EXPECT_EQ(tokenizer.encode("小明被小红打了", false).tokens,
            (std::vector<std::string>{"小明", "被", "小红", "打", "了"}));
  EXPECT_EQ(tokenizer.encode("明小", false).tokens, (std::vector<std::string>{"明", "小"}));
  EXPECT_EQ(
      tokenizer.encode("昨天下午在公园里小明追了小红", false).tokens,
      (std::vector<std::string>{"昨天", "下午", "在", "公园", "里", "小明", "追", "了", "小红"}));
  EXPECT_EQ(tokenizer.encode("狗咬人", false).tokens, (std::vector<std::string>{"狗", "咬", "人"}));
}

TEST_P(PretrainedOrderModel, LogitsMatchPyTorch) {
  const ShippedModel& shipped_model = shipped(GetParam());
  const int64_t labels = shipped_model.labels;
  ASSERT_EQ(labels, static_cast<int64_t>(shipped_model.golden["labels"].size()));
  ASSERT_EQ(shipped_model.engine_logits.size(), shipped_model.sentences.size() * labels);
  double worst = 0.0;
  std::string worst_text;
  for (size_t s = 0; s < shipped_model.sentences.size(); ++s) {
    const GoldenSentence& sentence = shipped_model.sentences[s];
    ASSERT_EQ(static_cast<int64_t>(sentence.logits.size()), labels);
    for (int64_t k = 0; k < labels; ++k) {
      const double difference =
          std::abs(shipped_model.engine_logits[s * labels + k] - sentence.logits[k]);
      if (difference > worst) {
        worst = difference;
        worst_text = sentence.text;
      }
    }
  }
  // PyTorch sums in other orders. Measured on AVX2: at most 1.2e-5 (order-alibi).
  EXPECT_LE(worst, shipped_model.logit_bound) << "largest difference on \"" << worst_text << "\"";
  std::ostringstream worst_string;
  worst_string << worst;
  RecordProperty("max_abs_difference", worst_string.str());
}

TEST_P(PretrainedOrderModel, AccuracyEqualsPyTorch) {
  const ShippedModel& shipped_model = shipped(GetParam());
  const int64_t labels = shipped_model.labels;
  std::map<std::string, int> correct, total;
  std::vector<bool> right;
  for (size_t s = 0; s < shipped_model.sentences.size(); ++s) {
    const GoldenSentence& sentence = shipped_model.sentences[s];
    const int64_t prediction = argmax(&shipped_model.engine_logits[s * labels], labels);
    // Exact: the top two of PyTorch's logits are at least 3.7e-4 apart for every sentence
    // (order-none's closest; 3.4 for the others), 30 times the largest difference measured, so
    // rounding does not swap them.
    EXPECT_EQ(prediction, argmax(sentence.logits.data(), labels))
        << "the engine and PyTorch predict differently for \"" << sentence.text << "\"";
    right.push_back(prediction == sentence.label);
    for (const std::string& key : {std::string("overall"), sentence.construction}) {
      total[key] += 1;
      correct[key] += right.back() ? 1 : 0;
    }
  }
  const nlohmann::json& accuracy = shipped_model.golden["accuracy"];
  EXPECT_EQ(correct["overall"], accuracy["overall"]["correct"].get<int>());
  EXPECT_EQ(total["overall"], accuracy["overall"]["total"].get<int>());
  for (const auto& [construction, counts] : accuracy["by_construction"].items()) {
    EXPECT_EQ(correct[construction], counts["correct"].get<int>()) << construction;
    EXPECT_EQ(total[construction], counts["total"].get<int>()) << construction;
  }

  std::map<std::string, int> both_right, pairs;
  for (size_t s = 0; s + 1 < shipped_model.sentences.size(); s += 2) {
    const GoldenSentence& first = shipped_model.sentences[s];
    const GoldenSentence& second = shipped_model.sentences[s + 1];
    ASSERT_EQ(first.pair, second.pair);
    for (const std::string& kind : pair_kinds(first.ids, second.ids, first.construction)) {
      pairs[kind] += 1;
      both_right[kind] += right[s] && right[s + 1] ? 1 : 0;
    }
  }
  const nlohmann::json& swapped = shipped_model.golden["swapped_pairs"];
  EXPECT_EQ(pairs.size(), swapped.size());
  for (const auto& [kind, counts] : swapped.items()) {
    EXPECT_EQ(both_right[kind], counts["both_right"].get<int>()) << kind;
    EXPECT_EQ(pairs[kind], counts["total"].get<int>()) << kind;
  }
}

// What the position encoding is for: every model with one names the agent of at least 98 % of
// the golden held-out sentences, and of both sentences in every pair whose words are each
// other's reversal (我打你 / 你打我 among them), which symmetric ALiBi could not tell apart
// without <s> and </s> at the ends.
class PositionEncodedModel : public ::testing::TestWithParam<std::string> {};

TEST_P(PositionEncodedModel, TellsWhoDidIt) {
  const ShippedModel& shipped_model = shipped(GetParam());
  const int64_t labels = shipped_model.labels;
  std::vector<bool> right;
  for (size_t s = 0; s < shipped_model.sentences.size(); ++s) {
    right.push_back(argmax(&shipped_model.engine_logits[s * labels], labels) ==
                    shipped_model.sentences[s].label);
  }
  // What the model learned, not a rounding bound: the top two logits of every sentence are more
  // than 3.4 apart in these models, so rounding cannot change a prediction.
  const double accuracy =
      double(std::count(right.begin(), right.end(), true)) / static_cast<double>(right.size());
  EXPECT_GE(accuracy, 0.98);
  int mirrors = 0, mirrors_right = 0;
  for (size_t s = 0; s + 1 < shipped_model.sentences.size(); s += 2) {
    const GoldenSentence& first = shipped_model.sentences[s];
    const GoldenSentence& second = shipped_model.sentences[s + 1];
    const std::vector<std::string> kinds = pair_kinds(first.ids, second.ids, first.construction);
    if (std::find(kinds.begin(), kinds.end(), "mirror") == kinds.end()) continue;
    ++mirrors;
    mirrors_right += right[s] && right[s + 1] ? 1 : 0;
  }
  ASSERT_GT(mirrors, 0);
  EXPECT_EQ(mirrors_right, mirrors);
}

std::string kind_of(const ::testing::TestParamInfo<std::string>& info) {
  return info.param.substr(info.param.find('-') + 1);
}

INSTANTIATE_TEST_SUITE_P(Shipped, PretrainedOrderModel, ::testing::ValuesIn(kModels), kind_of);
INSTANTIATE_TEST_SUITE_P(Shipped, PositionEncodedModel, ::testing::ValuesIn(kPositionEncodedModels),
                         kind_of);

// Swapping two words swaps their tokens and nothing else: no word-boundary mark that only the
// first word lacks, no Chinese piece spanning two characters; <s> and </s> stay at the ends.
TEST(PretrainedOrderTokenizer, SwappedSentencesArePermutations) {
  const std::unique_ptr<SubwordTokenizer> tokenizer =
      load_tokenizer_from_folder(model_dir("order-none"));
  const std::vector<std::pair<std::string, std::string>> swaps = {
      {"我打你", "你打我"},
      {"小明被小红打了", "小红被小明打了"},
      {"昨天老师在学校骂了妈妈", "昨天妈妈在学校骂了老师"},
      {"Xiaoming hit Xiaohong", "Xiaohong hit Xiaoming"},
      {"you chased the dog at school", "the dog chased you at school"},
      {"yesterday mom was hit by the teacher", "yesterday the teacher was hit by mom"},
      {"狗咬人", "人咬狗"},
      {"昨天下午在公园里小明追了小红", "昨天下午在公园里小红追了小明"},
      {"我们被他们打扰了", "他们被我们打扰了"},
      {"the dog bit the man", "the man bit the dog"},
  };
  const int32_t bos = *tokenizer->token_to_id("<s>"), eos = *tokenizer->token_to_id("</s>");
  for (const auto& [first, second] : swaps) {
    const std::vector<int32_t> a = tokenizer->encode(first).ids;
    const std::vector<int32_t> b = tokenizer->encode(second).ids;
    ASSERT_GE(a.size(), 2u);
    ASSERT_EQ(a.size(), b.size()) << first << " / " << second;
    EXPECT_EQ(a.front(), bos) << first;
    EXPECT_EQ(b.front(), bos) << second;
    EXPECT_EQ(a.back(), eos) << first;
    EXPECT_EQ(b.back(), eos) << second;
    EXPECT_TRUE(is_permutation_of(inner(a), inner(b))) << first << " / " << second;
    EXPECT_NE(a, b) << first << " / " << second;
    for (int32_t id : inner(a)) {
      EXPECT_NE(id, 1) << "unknown piece in " << first;
      EXPECT_NE(id, bos) << first;
      EXPECT_NE(id, eos) << first;
    }
  }
  EXPECT_EQ(tokenizer->encode("Xiaoming hit Xiaohong").tokens,
            (std::vector<std::string>{"<s>", "Xiaoming", "▁", "hit", "▁", "Xiaohong", "</s>"}));
  // Pronoun case is English, not tokenization: "I hit you" / "you hit me" differ in a word.
  EXPECT_FALSE(
      is_permutation_of(tokenizer->encode("I hit you").ids, tokenizer->encode("you hit me").ids));
  EXPECT_FALSE(
      is_permutation_of(tokenizer->encode("she hit him").ids, tokenizer->encode("he hit her").ids));

  // Every held-out pair whose two sentences hold the same words (all Chinese pairs among them)
  // holds the same tokens.
  const ShippedModel& shipped_model = shipped("order-none");
  int permutations = 0;
  for (size_t s = 0; s + 1 < shipped_model.sentences.size(); s += 2) {
    const GoldenSentence& first = shipped_model.sentences[s];
    const GoldenSentence& second = shipped_model.sentences[s + 1];
    std::vector<std::string> words[2];
    for (int i = 0; i < 2; ++i) {
      const std::string& text = i == 0 ? first.text : second.text;
      if (first.construction.rfind("zh", 0) == 0) {
        // Chinese characters are three UTF-8 bytes each here; compare them as units.
        for (size_t at = 0; at < text.size(); at += 3) words[i].push_back(text.substr(at, 3));
      } else {
        std::istringstream stream(text);
        for (std::string word; stream >> word;) words[i].push_back(word);
      }
      std::sort(words[i].begin(), words[i].end());
    }
    const bool same_words = words[0] == words[1];
    if (first.construction.rfind("zh", 0) == 0) {
      EXPECT_TRUE(same_words) << first.text;
    }
    const std::vector<int32_t> a = tokenizer->encode(first.text).ids;
    const std::vector<int32_t> b = tokenizer->encode(second.text).ids;
    EXPECT_EQ(is_permutation_of(a, b), same_words) << first.text << " / " << second.text;
    permutations += same_words ? 1 : 0;
  }
  EXPECT_GT(permutations, 80);
}

// Mean pooling over a model with no position encoding sees a bag of tokens: a swapped pair
// holding the same tokens gets the same logits, so at most one of the two can be right. The
// same up to rounding: the tokens sit in other rows and positions of the padded batch, summed in
// other orders (the logit bound; PyTorch measured up to 2.9e-6; a position that leaked in would
// move them by more than 1e-2).
TEST(PretrainedOrderNone, SwappedPairsGetTheSameLogits) {
  const ShippedModel& shipped_model = shipped("order-none");
  const int64_t labels = shipped_model.labels;
  int checked = 0;
  for (size_t s = 0; s + 1 < shipped_model.sentences.size(); s += 2) {
    const GoldenSentence& first = shipped_model.sentences[s];
    const GoldenSentence& second = shipped_model.sentences[s + 1];
    if (!is_permutation_of(first.ids, second.ids)) continue;
    ++checked;
    double difference = 0.0;
    for (int64_t k = 0; k < labels; ++k) {
      difference =
          std::max(difference, double(std::abs(shipped_model.engine_logits[s * labels + k] -
                                               shipped_model.engine_logits[(s + 1) * labels + k])));
    }
    EXPECT_LE(difference, shipped_model.logit_bound) << first.text << " / " << second.text;
  }
  EXPECT_GT(checked, 80);
  EXPECT_EQ(shipped_model.golden["swapped_pairs"]["permutation"]["both_right"].get<int>(), 0);
}

// models/pretrained/extrapolation.jsonl, what `tinyenc order --extrapolate` reads: one JSON a
// line, {text, label, tokens}; the label is one of the models' id2label, the token count is what
// the engine's tokenizer gives (<s> and </s> included), no token is <unk>, and the lengths run
// from the training range (at most 16 tokens) to the position tables' 64, most of them longer
// than any training sentence.
TEST(PretrainedOrderExtrapolation, LinesMatchTheModels) {
  const ShippedModel& shipped_model = shipped("order-learned");
  const std::unique_ptr<SubwordTokenizer> tokenizer =
      load_tokenizer_from_folder(model_dir("order-rope"));
  const std::vector<std::string>& labels = shipped_model.model.config.labels;
  std::ifstream in(testing::source_dir() / "models" / "pretrained" / "extrapolation.jsonl");
  ASSERT_TRUE(in.good());
  int lines = 0, longer = 0, shortest = 1 << 30, longest = 0;
  std::map<std::string, int> by_label;
  for (std::string line; std::getline(in, line);) {
    ++lines;
    const nlohmann::json item = nlohmann::json::parse(line);
    ASSERT_EQ(item.size(), 3u) << line;
    const std::string label = item.at("label").get<std::string>();
    EXPECT_NE(std::find(labels.begin(), labels.end(), label), labels.end()) << line;
    ++by_label[label];
    const Encoding encoding = tokenizer->encode(item.at("text").get<std::string>());
    const int tokens = item.at("tokens").get<int>();
    EXPECT_EQ(static_cast<int>(encoding.ids.size()), tokens) << line;
    EXPECT_EQ(std::count(encoding.ids.begin(), encoding.ids.end(), 1), 0) << line;
    shortest = std::min(shortest, tokens);
    longest = std::max(longest, tokens);
    longer += tokens > 16 ? 1 : 0;
  }
  EXPECT_GE(lines, 200);
  EXPECT_GE(longer, lines * 3 / 4);
  EXPECT_LE(shortest, 16);
  EXPECT_GT(longest, 56);
  EXPECT_LE(longest, *shipped_model.model.config.max_position_embeddings);
  EXPECT_GE(by_label.size(), 20u);
}

}  // namespace
}  // namespace tinyenc
