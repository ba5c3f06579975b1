// `tinyenc run` and `tinyenc bench` end to end on the shipped models: output schemas, input
// sources, batching, --ids, pooling, atomic output, and bad input (exit 2, one line).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/cli.h"
#include "tests/support/float_tolerance.h"
#include "tests/support/run_program.h"
#include "tests/support/temp_folder.h"
#include "tests/support/test_data.h"

namespace tinyenc {
namespace {

using testing::count_lines;
using testing::pretrained_model;
using testing::ProgramResult;
using testing::run_tinyenc;

nlohmann::json run_json(const std::string& arguments, const std::string& input = "") {
  const ProgramResult result = run_tinyenc(arguments + " --json", input);
  EXPECT_EQ(result.exit_code, 0) << arguments << ": " << result.err;
  return nlohmann::json::parse(result.out);
}

void expect_bad_input(const std::string& arguments, const std::string& mentions,
                      const std::string& input = "") {
  const ProgramResult result = run_tinyenc(arguments, input);
  EXPECT_EQ(result.exit_code, 2) << arguments;
  EXPECT_EQ(count_lines(result.err), 1) << arguments << ": " << result.err;
  EXPECT_EQ(result.err.rfind("tinyenc: error: ", 0), 0u) << result.err;
  EXPECT_NE(result.err.find(mentions), std::string::npos) << result.err;
}

// A golden encoder (vocabulary of 50) with a vocab.txt of our own that knows neither 狗 nor 人,
// written into `dir`.
std::filesystem::path bert_folder(const std::filesystem::path& dir) {
  const std::filesystem::path golden = testing::source_dir() / "tests/golden/encoders/none";
  for (const char* file : {"config.json", "model.safetensors"}) {
    std::filesystem::copy_file(golden / file, dir / file);
  }
  std::ofstream(dir / "vocab.txt") << "[PAD]\n[UNK]\n[CLS]\n[SEP]\n我\n打\n你\nthe\ncat\n";
  return dir;
}

TEST(CliRun, UnknownTokensAreMarked) {
  const testing::TempFolder temp("tinyenc_cli_run_test");
  const std::string m = " --threads 1 -m " + bert_folder(temp.path()).string();
  const ProgramResult table = run_tinyenc("run" + m + " 狗咬人 'the cat' '我打 dog'");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("tokens  [CLS] \u27e8unk:狗\u27e9 \u27e8unk:咬\u27e9 \u27e8unk:人\u27e9 "
                           "[SEP]\n"),
            std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("tokens  [CLS] the cat [SEP]\n"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("tokens  [CLS] 我 打 \u27e8unk:dog\u27e9 [SEP]\n"), std::string::npos)
      << table.out;
  EXPECT_EQ(table.err,
            "tinyenc: warning: 4 tokens in 2 of 3 texts unknown to the vocabulary ([UNK], id 1): "
            "'狗' '咬' '人' 'dog'; the model sees them all as one token, so what it says of them "
            "is a guess\n");

  const nlohmann::json doc = run_json("run" + m + " 狗咬人 'the cat' '我打 dog'");
  EXPECT_EQ(doc["inputs"][0]["unknown"], nlohmann::json({1, 2, 3}));
  EXPECT_EQ(doc["inputs"][0]["tokens"][1], "[UNK]");  // the pieces as the tokenizer gives them
  EXPECT_EQ(doc["inputs"][1]["unknown"], nlohmann::json::array());
  EXPECT_EQ(doc["inputs"][2]["unknown"], nlohmann::json({3}));
  // --pair: the second text's tokens point into the second text.
  const ProgramResult pair = run_tinyenc("run --pair" + m + " -", "我打你\t狗\n");
  ASSERT_EQ(pair.exit_code, 0) << pair.err;
  EXPECT_NE(pair.out.find("[SEP] \u27e8unk:狗\u27e9 [SEP]"), std::string::npos) << pair.out;
  // Nothing unknown: no warning.
  EXPECT_EQ(run_tinyenc("run" + m + " 'the cat'").err, "");

  // The shipped sentencepiece models: a character they never saw is <unk>, shown as what it is.
  const ProgramResult shipped =
      run_tinyenc("run --threads 1 -m " + pretrained_model("order-rope").string() + " 我打龘");
  ASSERT_EQ(shipped.exit_code, 0) << shipped.err;
  EXPECT_NE(shipped.out.find("\u27e8unk:龘\u27e9 </s>"), std::string::npos) << shipped.out;
  EXPECT_NE(shipped.err.find("1 token in 1 of 1 text unknown to the vocabulary (<unk>, id "),
            std::string::npos)
      << shipped.err;
}

TEST(CliRun, TableNamesTheAgent) {
  const ProgramResult result = run_tinyenc(
      "run --threads 1 -m " + pretrained_model("order-rope").string() + " 我打你 你打我");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  // The tokens the model sees, the template's <s> and </s> included (as `tinyenc tokenize`).
  EXPECT_NE(result.out.find("tokens  <s> 我 打 你 </s>\n  label   我/I"), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("tokens  <s> 你 打 我 </s>\n  label   你/you"), std::string::npos)
      << result.out;
}

TEST(CliRun, JsonSchemaAndConsistency) {
  const nlohmann::json doc = run_json(
      "run --threads 1 -m " + pretrained_model("order-learned").string() + " 小明被小红打了");
  ASSERT_EQ(doc["inputs"].size(), 1u);
  const nlohmann::json& item = doc["inputs"][0];
  for (const char* key :
       {"text", "tokens", "ids", "label", "probabilities", "logits", "embedding"}) {
    EXPECT_TRUE(item.contains(key)) << key;
  }
  EXPECT_EQ(item["text"], "小明被小红打了");
  EXPECT_EQ(item["tokens"].size(), item["ids"].size());
  EXPECT_EQ(item["embedding"].size(), 64u);
  const std::vector<double> probabilities = item["probabilities"];
  const std::vector<double> logits = item["logits"];
  ASSERT_EQ(probabilities.size(), doc["labels"].size());
  double sum = 0.0;
  size_t best = 0;
  for (size_t i = 0; i < probabilities.size(); ++i) {
    sum += probabilities[i];
    if (logits[i] > logits[best]) best = i;
  }
  // Each probability is a double rounded to float once (at most 2^-25 below 1): the labels sum
  // to 1 within their count times 2^-24 (6e-7 for ten).
  EXPECT_NEAR(sum, 1.0, static_cast<double>(probabilities.size()) * testing::kFloatRoundoff);
  EXPECT_EQ(item["label"], doc["labels"][best]);
  EXPECT_EQ(item["label"], "小红/Xiaohong");  // the agent of a 被 passive comes second
}

TEST(CliRun, StdinFileAndArgumentsAgree) {
  const std::string m = " --threads 1 -m " + pretrained_model("order-sinusoidal").string();
  const nlohmann::json from_arguments = run_json("run" + m + " 我打你 'I hit you'");
  const nlohmann::json from_stdin = run_json("run" + m + " -", "我打你\nI hit you\n");
  // The same texts in the same batch: the same computation, hence the same bits.
  EXPECT_EQ(from_arguments["inputs"], from_stdin["inputs"]);
  const ProgramResult lines = run_tinyenc("run" + m + " --jsonl -", "我打你\nI hit you\n你打我\n");
  ASSERT_EQ(lines.exit_code, 0) << lines.err;
  EXPECT_EQ(count_lines(lines.out), 3);
  std::stringstream stream(lines.out);
  for (std::string line; std::getline(stream, line);) {
    EXPECT_TRUE(nlohmann::json::parse(line).contains("label"));
  }
}

// Batched with longer and shorter texts, a text's outputs equal its outputs alone, up to float
// rounding: padded, the batch runs other kernel shapes and sums each softmax row over more
// (masked) keys. The logits agree within the encoder bound (tests/support/float_tolerance.h) at
// the largest sum the classifier adds up: the shipped models' classifier rows sum |weights| to at
// most 8.4, times the largest embedding (the mean pooled hidden states). Padding that leaked in
// moves them by far more.
TEST(CliRun, BatchEqualsSingle) {
  const std::string m = " --threads 1 -m " + pretrained_model("order-relative").string();
  const std::string texts = " 我打你 '昨天在学校小明被小红打了' 'you were hit by me'";
  const nlohmann::json batched = run_json("run --batch-size 3" + m + texts);
  const nlohmann::json single = run_json("run --batch-size 1" + m + texts);
  for (size_t i = 0; i < 3; ++i) {
    const std::vector<double> a = batched["inputs"][i]["logits"], b = single["inputs"][i]["logits"];
    const std::vector<double> embedding = single["inputs"][i]["embedding"];
    double largest = 0.0;
    for (double value : embedding) largest = std::max(largest, std::fabs(value));
    const double bound = testing::encoder_rounding_bound(8.4 * largest, 2);
    for (size_t k = 0; k < a.size(); ++k) EXPECT_NEAR(a[k], b[k], bound) << "text " << i;
  }
}

TEST(CliRun, IdsBypassTheTokenizer) {
  const std::string m = " --threads 1 -m " + pretrained_model("order-rope").string();
  const nlohmann::json text = run_json("run" + m + " 我打你");
  std::string ids;
  for (const auto& id : text["inputs"][0]["ids"]) {
    if (!ids.empty()) ids += ',';
    ids += id.dump();
  }
  const nlohmann::json by_ids = run_json("run" + m + " --ids " + ids);
  EXPECT_EQ(by_ids["inputs"][0]["ids"], text["inputs"][0]["ids"]);
  // The same ids in the same shape: the same computation, hence the same bits.
  EXPECT_EQ(by_ids["inputs"][0]["logits"], text["inputs"][0]["logits"]);
}

TEST(CliRun, PoolingAndNormalize) {
  const std::string m = " --threads 1 -m " + pretrained_model("order-rope").string() + " 我打你";
  const nlohmann::json mean = run_json("run" + m);
  const nlohmann::json cls = run_json("run --pooling cls" + m);
  EXPECT_NE(mean["inputs"][0]["embedding"], cls["inputs"][0]["embedding"]);
  // Pooling none: the embedding is the last hidden state, a row per token, and the head still
  // labels from the model's own pooling.
  const nlohmann::json none = run_json("run --pooling none --hidden-states" + m);
  EXPECT_EQ(none["inputs"][0]["embedding"], none["inputs"][0]["hidden_states"]);
  EXPECT_EQ(none["inputs"][0]["label"], mean["inputs"][0]["label"]);
  const nlohmann::json normalized = run_json("run --normalize" + m);
  double norm = 0.0;
  for (double value : normalized["inputs"][0]["embedding"]) norm += value * value;
  // Normalised in double, then each element rounded to float (2^-24 of itself at most): the
  // norm is 1 within 2^-24; twice that allows for the sums.
  EXPECT_NEAR(std::sqrt(norm), 1.0, 2 * testing::kFloatRoundoff);
  const nlohmann::json hidden = run_json("run --hidden-states" + m);
  // One row per token: <s> 我 打 你 </s>.
  EXPECT_EQ(hidden["inputs"][0]["hidden_states"].size(), 5u);
  EXPECT_EQ(hidden["inputs"][0]["hidden_states"].size(), hidden["inputs"][0]["ids"].size());
  expect_bad_input("run --pooling pooler" + m, "pooler");
  expect_bad_input("run --pooling max" + m, "--pooling");
}

// A sentence-transformers folder (a shipped model made a base model, with modules.json,
// 1_Pooling and 2_Normalize) gives the mean-pooled embedding, L2-normalized, without options.
TEST(CliRun, SentenceTransformersFolderPoolsAndNormalizes) {
  const testing::TempFolder temp("tinyenc_cli_run_test");
  const std::filesystem::path& dir = temp.path();
  std::filesystem::create_directories(dir / "1_Pooling");
  std::filesystem::create_directories(dir / "2_Normalize");
  const std::filesystem::path shipped = pretrained_model("order-rope");
  for (const char* name : {"model.safetensors", "tokenizer.model"}) {
    std::filesystem::copy_file(shipped / name, dir / name);
  }
  nlohmann::json config = testing::read_json(shipped / "config.json");
  config.erase("id2label");
  config["pooling"] = "cls";
  std::ofstream(dir / "config.json") << config.dump();
  const nlohmann::json modules = nlohmann::json::parse(R"([
    {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
    {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
    {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}
  ])");
  std::ofstream(dir / "modules.json") << modules.dump();
  std::ofstream(dir / "1_Pooling" / "config.json")
      << R"({"word_embedding_dimension": 64, "pooling_mode_cls_token": false,
             "pooling_mode_mean_tokens": true, "pooling_mode_max_tokens": false})";

  const std::string text = " 我打你";
  const nlohmann::json folder = run_json("run --threads 1 -m " + dir.string() + text);
  const nlohmann::json by_hand =
      run_json("run --threads 1 --pooling mean --normalize -m " + shipped.string() + text);
  const std::vector<double> embedding = folder["inputs"][0]["embedding"];
  const std::vector<double> expected = by_hand["inputs"][0]["embedding"];
  ASSERT_EQ(embedding.size(), expected.size());
  double norm = 0.0;
  for (size_t i = 0; i < embedding.size(); ++i) {
    EXPECT_NEAR(embedding[i], expected[i], 1e-6) << i;
    norm += embedding[i] * embedding[i];
  }
  EXPECT_NEAR(std::sqrt(norm), 1.0, 2 * testing::kFloatRoundoff);

  std::ofstream(dir / "1_Pooling" / "config.json")
      << R"({"word_embedding_dimension": 64, "pooling_mode_max_tokens": true})";
  expect_bad_input("run --threads 1 -m " + dir.string() + text,
                   "1_Pooling/config.json: pooling_mode_max_tokens: max pooling is not supported");
}

TEST(CliRun, OutputFileIsWrittenAtomically) {
  const testing::TempFolder temp("tinyenc_cli_run_test");
  const std::filesystem::path& dir = temp.path();
  const std::string m = " --threads 1 -m " + pretrained_model("order-none").string();
  const ProgramResult ok =
      run_tinyenc("run --json -o " + (dir / "a.json").string() + m + " 我打你");
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(ok.out, "");
  std::ifstream in(dir / "a.json");
  EXPECT_EQ(nlohmann::json::parse(in)["inputs"].size(), 1u);
  // The second text is invalid UTF-8: nothing may be left behind, not even a temporary file.
  const ProgramResult bad =
      run_tinyenc("run --json -o " + (dir / "b.json").string() + m + " -", "我打你\n\xff\xfe\n");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 1);
}

TEST(CliRun, BadInputIsOneLineAndExitTwo) {
  const std::string m = " --threads 1 -m " + pretrained_model("order-rope").string();
  expect_bad_input("run -m /nonexistent/model x", "/nonexistent/model");
  expect_bad_input("run" + m + " --ids 1,2,500", "--ids");
  expect_bad_input("run" + m + " --ids 1,x", "--ids");
  expect_bad_input("run" + m + " -", "UTF-8", "ok\n\xc3\x28\n");
  expect_bad_input("run" + m, "no input texts");
  expect_bad_input("run" + m + " --batch-size 0 x", "--batch-size");
  // The shipped models have 64 positions.
  const std::string long_text(100, 'a');
  std::string chinese;
  for (int i = 0; i < 70; ++i) chinese += "我";
  expect_bad_input("run" + m + " " + chinese, "max_position_embeddings");
  const nlohmann::json cut = run_json("run --truncate" + m + " " + chinese);
  EXPECT_EQ(cut["inputs"][0]["ids"].size(), 64u);
}

TEST(CliBench, JsonSchemaAndStagesSumToTheTotal) {
  const ProgramResult result =
      run_tinyenc("bench --config tiny --seq 8,16 --threads 1 --repeat 20 --pe none,rope -f json");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const nlohmann::json doc = nlohmann::json::parse(result.out);
  EXPECT_TRUE(doc["machine"].contains("cpu"));
  EXPECT_TRUE(doc["machine"].contains("isa"));
  EXPECT_NE(doc["onednn"].get<std::string>().find("2."), std::string::npos);
  ASSERT_EQ(doc["rows"].size(), 4u);
  for (const auto& row : doc["rows"]) {
    EXPECT_EQ(row["runs"], 20);
    EXPECT_LE(row["min_ms"].get<double>(), row["p50_ms"].get<double>());
    EXPECT_LE(row["p50_ms"].get<double>(), row["p90_ms"].get<double>());
    EXPECT_LE(row["p90_ms"].get<double>(), row["p99_ms"].get<double>());
    double sum = 0.0;
    for (const auto& [stage, ms] : row["stages_ms"].items()) sum += ms.get<double>();
    // The stages are laps of one clock inside the forward pass: together they cannot exceed
    // the pass timed from outside, and they cover most of a typical pass. Only most: what lies
    // outside the laps (the call, freeing the outputs) is small, but a busy machine may preempt
    // the process there, and one such run of 20 moves the mean (a 3 ms pause in 0.08 ms passes)
    // while the median stays.
    const double mean = row["mean_ms"].get<double>();
    EXPECT_LE(sum, 1.01 * mean + 1e-3) << row.dump();
    EXPECT_GE(sum, 0.7 * row["p50_ms"].get<double>()) << row.dump();
  }
  const ProgramResult bad = run_tinyenc("bench --config huge");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(run_tinyenc("bench --config tiny --seq 8,x").exit_code, 2);
}

}  // namespace
}  // namespace tinyenc
