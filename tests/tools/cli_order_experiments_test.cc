// `tinyenc order --extrapolate` and `--attention-distance` end to end. Extrapolation's accuracies
// are checked against `tinyenc run`'s labels for the same texts, and a learned table shows
// "cannot" past its rows. Attention distance is checked against numbers worked out by hand:
// a model whose query weights are zero scores every key the same, so without a position
// encoding its attention is uniform ((n^2 - 1) / 3n mean distance over n tokens), and with ALiBi
// it is softmax(-m_h |i - j|), Press et al.'s slopes m_h = 2^(-8 (h + 1) / H).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/run_program.h"
#include "tests/support/temp_folder.h"
#include "tests/support/test_data.h"
#include "tools/tinyenc/plot/svg_check.h"

namespace {

using nlohmann::json;
using Result = tinyenc::testing::ProgramResult;
using tinyenc::testing::read_text;

// A folder that the tests of this file share, removed when the program exits.
const std::filesystem::path& scratch() {
  static const tinyenc::testing::TempFolder folder("tinyenc_cli_order_experiments_test",
                                                   "CliOrderExperiments");
  return folder.path();
}

Result run(const std::string& arguments) {
  return tinyenc::testing::run_program(TINYENC_BINARY, arguments);
}

std::string quote(const std::filesystem::path& path) { return tinyenc::testing::shell_quote(path); }

std::filesystem::path pretrained(const std::string& name) {
  return tinyenc::testing::source_dir() / "models/pretrained" / name;
}

void write(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string repeat(const std::string& text, int times) {
  std::string out;
  for (int i = 0; i < times; ++i) out += text;
  return out;
}

// A golden encoder copied to the scratch folder with every query projection (weight and bias)
// set to zero: every score q.k is 0, and only the position encoding's bias is left.
std::filesystem::path zero_query_model(const std::string& golden) {
  const std::filesystem::path source =
      tinyenc::testing::source_dir() / "tests/golden/encoders" / golden;
  const std::filesystem::path dir = scratch() / ("zero-query-" + golden);
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(source / "config.json", dir / "config.json",
                             std::filesystem::copy_options::overwrite_existing);
  std::string bytes = read_text(source / "model.safetensors");
  uint64_t header_size = 0;
  std::memcpy(&header_size, bytes.data(), sizeof header_size);  // little-endian, as x86 and Arm
  const json header = json::parse(bytes.substr(8, header_size));
  int zeroed = 0;
  for (const auto& [name, tensor] : header.items()) {
    if (name.find("attention.self.query") == std::string::npos) continue;
    const size_t begin = 8 + header_size + tensor["data_offsets"][0].get<size_t>();
    const size_t end = 8 + header_size + tensor["data_offsets"][1].get<size_t>();
    std::fill(bytes.begin() + static_cast<ptrdiff_t>(begin),
              bytes.begin() + static_cast<ptrdiff_t>(end), '\0');
    ++zeroed;
  }
  EXPECT_EQ(zeroed, 4);  // weight and bias of two layers
  write(dir / "model.safetensors", bytes);
  return dir;
}

struct Statistics {
  double mean_distance = 0, same = 0, plus_minus_1 = 0, plus_minus_2 = 0;
};

// The statistics of attention rows p_i(j) proportional to exp(-slope |i - j|) over n tokens,
// averaged over the rows (slope 0: uniform).
Statistics by_hand(int n, double slope) {
  Statistics sum;
  for (int i = 0; i < n; ++i) {
    double total = 0;
    for (int j = 0; j < n; ++j) total += std::exp(-slope * std::abs(i - j));
    for (int j = 0; j < n; ++j) {
      const double p = std::exp(-slope * std::abs(i - j)) / total;
      const int distance = std::abs(i - j);
      sum.mean_distance += p * distance;
      if (distance == 0) sum.same += p;
      if (distance == 1) sum.plus_minus_1 += p;
      if (distance == 2) sum.plus_minus_2 += p;
    }
  }
  return {sum.mean_distance / n, sum.same / n, sum.plus_minus_1 / n, sum.plus_minus_2 / n};
}

void expect_statistics(const json& entry, const Statistics& expected, double tolerance) {
  EXPECT_NEAR(entry["mean_distance"].get<double>(), expected.mean_distance, tolerance) << entry;
  EXPECT_NEAR(entry["same"].get<double>(), expected.same, tolerance) << entry;
  EXPECT_NEAR(entry["plus_minus_1"].get<double>(), expected.plus_minus_1, tolerance) << entry;
  EXPECT_NEAR(entry["plus_minus_2"].get<double>(), expected.plus_minus_2, tolerance) << entry;
}

// --- Attention distance -----------------------------------------------------------------------

TEST(CliOrderExperiments, UniformAttentionHasTheTextbookMeanDistance) {
  // Without a position encoding and with zero queries every head of every layer attends
  // uniformly: over n = 7 tokens the mean |i - j| is (49 - 1) / 21 = 16/7, the share on the token
  // itself 1/7, on +-1 2 * 6 / 49 and on +-2 2 * 5 / 49.
  const std::filesystem::path model = zero_query_model("none");
  const Result result =
      run("order -m " + quote(model) + " --attention-distance --ids 5,9,13,21,7,30,2 --json");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const json document = json::parse(result.out);
  ASSERT_EQ(document["models"].size(), 1u);
  const json& entry = document["models"][0];
  EXPECT_EQ(entry["pe"], "none");
  EXPECT_EQ(entry["query_tokens"], 7);
  ASSERT_EQ(entry["per_head"].size(), 8u);  // 2 layers x 4 heads
  const Statistics uniform{16.0 / 7, 1.0 / 7, 12.0 / 49, 10.0 / 49};
  EXPECT_NEAR(uniform.mean_distance, by_hand(7, 0).mean_distance, 1e-12);
  for (const json& head : entry["per_head"]) expect_statistics(head, uniform, 1e-6);
  // JSON spells float32 values: 3e-7 covers their rounding.
  expect_statistics(entry["uniform"], uniform, 3e-7);
}

TEST(CliOrderExperiments, AlibiAttentionFollowsItsSlopes) {
  // Zero queries: the scores are ALiBi's bias alone, -m_h |i - j|, in both layers.
  const std::filesystem::path model = zero_query_model("alibi");
  const Result result = run("order -m " + quote(model) +
                            " --attention-distance --ids 5,9,13,21,7,30,2,11,4,8 --json");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const json entry = json::parse(result.out)["models"][0];
  ASSERT_EQ(entry["per_head"].size(), 8u);
  for (const json& head : entry["per_head"]) {
    const int h = head["head"].get<int>() - 1;
    const double slope = std::pow(2.0, -8.0 * (h + 1) / 4);
    expect_statistics(head, by_hand(10, slope), 1e-5);
    double shares = 0;
    for (const json& share : head["by_offset"]) shares += share.get<double>();
    EXPECT_LE(shares, 1 + 1e-6);
  }
  // The steepest head keeps more on near tokens than uniform attention does, and looks less far.
  const json& steep = entry["per_head"][0];
  EXPECT_GT(
      steep["same"].get<double>() + steep["plus_minus_1"].get<double>(),
      entry["uniform"]["same"].get<double>() + entry["uniform"]["plus_minus_1"].get<double>());
  EXPECT_LT(steep["mean_distance"].get<double>(), entry["uniform"]["mean_distance"].get<double>());
}

TEST(CliOrderExperiments, AttentionDistanceOfTheShippedModels) {
  // Trained weights: shares lie in [0, 1] and the three together stay at most 1; ALiBi's layers
  // look closer than the order-blind model's on the same sentences.
  const std::string models =
      "-m " + quote(pretrained("order-none")) + " -m " + quote(pretrained("order-alibi"));
  const std::filesystem::path dir = scratch() / "distance-plots";
  const Result result = run("order " + models +
                            " --attention-distance 我打你 小明被小红打了 昨天老师在学校骂了小狗"
                            " --json --plot-dir " +
                            quote(dir));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const json document = json::parse(result.out);
  ASSERT_EQ(document["models"].size(), 2u);
  std::map<std::string, double> first_layer_distance;
  for (const json& model : document["models"]) {
    EXPECT_EQ(model["sentences"], 3);
    EXPECT_EQ(model["query_tokens"], 5 + 7 + 9);  // <s> ... </s> around 3, 5 and 7 words
    for (const json& head : model["per_head"]) {
      const double same = head["same"], one = head["plus_minus_1"], two = head["plus_minus_2"];
      EXPECT_GE(same, 0);
      EXPECT_LE(same + one + two, 1 + 1e-6) << head;
      if (head["layer"] == 1)
        first_layer_distance[model["pe"].get<std::string>()] += head["mean_distance"].get<double>();
    }
  }
  EXPECT_LT(first_layer_distance["alibi"], first_layer_distance["none"]);
  const std::string svg = read_text(dir / "attention_distance.svg");
  const tinyenc::plot::SvgCheck check = tinyenc::plot::check_svg(svg);
  EXPECT_TRUE(check.ok()) << check.error;
  EXPECT_NE(check.text.find("order-alibi (alibi)"), std::string::npos);
  EXPECT_EQ(check.count("series"), 2 * 2);  // a line per layer in each model's panel

  const Result table = run("order " + models + " --attention-distance 我打你");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("mean |i-j|"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("uniform"), std::string::npos) << table.out;
  const Result csv = run("order " + models + " --attention-distance 我打你 --csv");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  // A header, 2 x 4 heads and a uniform row per model.
  EXPECT_EQ(tinyenc::testing::count_lines(csv.out), 1 + 2 * (8 + 1)) << csv.out;
}

// --- Extrapolation ----------------------------------------------------------------------------

struct Labelled {
  std::string text, label;
};

// Sentences of the shipped models' vocabulary, short to long: the longest need more positions
// than the learned table's 64.
std::vector<Labelled> labelled_sentences() {
  return {
      {"我打你", "我/I"},
      {"你打我", "你/you"},
      {"小明被小红打了", "小红/Xiaohong"},
      {"小红把小明打了", "小红/Xiaohong"},
      {"昨天老师在学校骂了小狗", "老师/teacher"},
      {"昨天小狗在学校追了妈妈", "小狗/puppy"},
      {"昨天在学校爸爸踢了小明", "爸爸/dad"},
      {"Xiaoming hit Xiaohong", "小明/Xiaoming"},
      {"Xiaohong was hit by Xiaoming", "小明/Xiaoming"},
      // 昨天在学校 is three tokens (昨天 在 学校): 36, 41, 75 and 78 tokens with <s> </s>.
      {repeat("昨天在学校", 10) + "小明打了小红", "小明/Xiaoming"},
      {repeat("昨天在学校", 12) + "妈妈爱你", "妈妈/mom"},
      {repeat("昨天在学校", 23) + "小明打了小红", "小明/Xiaoming"},
      {repeat("昨天在学校", 24) + "他帮了她", "他/he"},
  };
}

std::string jsonl(const std::vector<Labelled>& sentences) {
  std::string out;
  for (const Labelled& sentence : sentences) {
    out += json({{"text", sentence.text}, {"label", sentence.label}}).dump() + "\n";
  }
  return out;
}

TEST(CliOrderExperiments, ExtrapolationAgreesWithRunAndShowsCannot) {
  const std::vector<Labelled> sentences = labelled_sentences();
  const std::filesystem::path file = scratch() / "long.jsonl";
  write(file, jsonl(sentences));
  const int64_t limit = 64;  // order-learned's config.json: max_positions 64, no padding offset
  for (const char* model_name : {"order-learned", "order-rope"}) {
    const std::string name = model_name;
    // The reference: `run`'s label and token count for every text it can run.
    std::map<int64_t, std::pair<int64_t, int64_t>> expected;  // bucket low -> correct, total
    std::map<int64_t, int64_t> too_long;                      // bucket low -> sentences
    const int width = 16;
    for (const Labelled& sentence : sentences) {
      const Result one = run("run -m " + quote(pretrained(name)) + " --jsonl -- " +
                             tinyenc::testing::shell_quote(sentence.text));
      if (one.exit_code != 0) {
        EXPECT_NE(one.err.find("longer than the model's 64"), std::string::npos) << one.err;
        // Its token count from the tokenizer alone.
        const Result tokenized =
            run("tokenize --tokenizer " + quote(pretrained(name) / "tokenizer.model") +
                " --json -- " + tinyenc::testing::shell_quote(sentence.text));
        ASSERT_EQ(tokenized.exit_code, 0) << tokenized.err;
        const int64_t tokens =
            static_cast<int64_t>(json::parse(tokenized.out)["inputs"][0]["tokens"].size());
        ASSERT_GT(tokens, limit);
        ++too_long[(tokens - 1) / width * width + 1];
        continue;
      }
      const json item = json::parse(one.out);
      const int64_t tokens = static_cast<int64_t>(item["tokens"].size());
      auto& [correct, total] = expected[(tokens - 1) / width * width + 1];
      correct += item["label"] == sentence.label;
      ++total;
    }
    ASSERT_FALSE(too_long.empty());
    const Result result = run("order -m " + quote(pretrained(name)) + " --extrapolate " +
                              quote(file) + " --bucket 16 --json");
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const json document = json::parse(result.out);
    EXPECT_EQ(document["sentences"], sentences.size());
    EXPECT_EQ(document["bucket_width"], width);
    const json& model = document["models"][0];
    EXPECT_EQ(model["max_tokens"], limit);
    ASSERT_EQ(model["buckets"].size(), expected.size() + too_long.size()) << model;
    for (const json& bucket : model["buckets"]) {
      const int64_t low = bucket["tokens_low"];
      EXPECT_EQ(bucket["tokens_high"].get<int64_t>(), low + width - 1);
      if (too_long.count(low)) {
        EXPECT_EQ(bucket["sentences"], too_long[low]);
        EXPECT_TRUE(bucket["accuracy"].is_null()) << bucket;
        EXPECT_TRUE(bucket["correct"].is_null()) << bucket;
        EXPECT_NE(bucket["cannot"].get<std::string>().find("64"), std::string::npos) << bucket;
        if (name == "order-learned") {
          EXPECT_NE(bucket["cannot"].get<std::string>().find("learned position table"),
                    std::string::npos);
        }
        continue;
      }
      ASSERT_TRUE(expected.count(low)) << bucket;
      const auto [correct, total] = expected[low];
      EXPECT_EQ(bucket["sentences"], total);
      EXPECT_EQ(bucket["correct"], correct);
      EXPECT_DOUBLE_EQ(bucket["accuracy"].get<double>(), double(correct) / double(total));
      EXPECT_TRUE(bucket["cannot"].is_null());
    }
  }
}

TEST(CliOrderExperiments, ExtrapolationTableCsvAndFigure) {
  const std::filesystem::path file = scratch() / "table.jsonl";
  write(file, jsonl(labelled_sentences()));
  const std::string models = "--models " + quote(pretrained("order-learned")) + " " +
                             quote(pretrained("order-alibi")) + " --extrapolate " + quote(file);
  const std::filesystem::path dir = scratch() / "extrapolation-plots";
  const Result table = run("order " + models + " --plot-dir " + quote(dir));
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("cannot"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("order-learned (learned)"), std::string::npos) << table.out;
  // The default width: 13 sentences from 5 to 78 tokens need buckets of 8 to stay within 12.
  EXPECT_NE(table.out.find("\n  1-8 "), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("\n  73-80 "), std::string::npos) << table.out;
  const std::string svg = read_text(dir / "extrapolation.svg");
  const tinyenc::plot::SvgCheck check = tinyenc::plot::check_svg(svg);
  EXPECT_TRUE(check.ok()) << check.error;
  EXPECT_NE(check.text.find("limit 64"), std::string::npos);
  // Points where a model runs the bucket: 1-8, 9-16, 33-40 and 41-48 of each model, none at
  // 73-80; and a stretch of each model's line in the legend.
  EXPECT_EQ(check.count("point"), 2 * 4);
  EXPECT_EQ(check.count("legend-line"), 2);
  EXPECT_EQ(tinyenc::plot::overlapping_text(check), std::vector<std::string>{});

  const Result csv = run("order " + models + " --csv");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("model,pe,max_tokens,", 0), 0u) << csv.out;
  EXPECT_NE(csv.out.find(",,,78 tokens: past the learned position table"), std::string::npos)
      << csv.out;
}

TEST(CliOrderExperiments, BadExtrapolationFilesAreOneLineAndExitTwo) {
  const std::string model = "-m " + quote(pretrained("order-rope"));
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{\"text\": \"我打你\", \"label\": \"我/I\"}\nnot json\n", ":2: not JSON"},
      {"{\"label\": \"我/I\"}\n", ":1: text: missing"},
      {"{\"text\": \"我打你\"}\n", ":1: label: missing"},
      {"{\"text\": 3, \"label\": \"我/I\"}\n", ":1: text: must be"},
      {"{\"text\": \"我打你\", \"label\": \"我/I\", \"tokens\": -1}\n", ":1: tokens: must be"},
      {"[1, 2]\n", ":1: expected an object"},
      {"\n{\"text\": \"我打你\", \"label\": \"cat\"}\n", ":2: label: 'cat' is not a label"},
      {"", ": no sentences"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::filesystem::path file = scratch() / ("bad" + std::to_string(i) + ".jsonl");
    write(file, cases[i].first);
    const Result result = run("order " + model + " --extrapolate " + quote(file));
    EXPECT_EQ(result.exit_code, 2) << cases[i].first;
    EXPECT_EQ(tinyenc::testing::count_lines(result.err), 1) << result.err;
    EXPECT_NE(result.err.find(file.string() + cases[i].second), std::string::npos)
        << result.err << " for " << cases[i].first;
    EXPECT_TRUE(result.out.empty());
  }
  const Result missing = run("order " + model + " --extrapolate " + quote(scratch() / "none"));
  EXPECT_EQ(missing.exit_code, 2);
  const Result with_text =
      run("order " + model + " --extrapolate " + quote(scratch() / "bad0.jsonl") + " 我打你");
  EXPECT_EQ(with_text.exit_code, 2);
  EXPECT_NE(with_text.err.find("give no sentences"), std::string::npos) << with_text.err;
  const Result with_compare =
      run("order " + model + " --attention-distance --compare 我打你 你打我");
  EXPECT_EQ(with_compare.exit_code, 2);
}

}  // namespace
