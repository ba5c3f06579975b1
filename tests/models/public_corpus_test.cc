// tinyenc::Model runs texts the way `tinyenc run` does: the same windows, sorting and token
// budgets, the same long-text rules (truncate, chunk with overlap), so the same floats bit for
// bit (one thread each; the CLI's JSON spells each float32 in the shortest digits that read back
// as it), in the same order, through run(), embed(), classify() and a Stream.
#include <gtest/gtest.h>

#include <tinyenc/tinyenc.h>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "models/corpus_runner.h"
#include "tests/support/cli.h"
#include "tests/support/run_program.h"
#include "tests/support/temp_folder.h"
#include "tests/support/test_data.h"

namespace {

using tinyenc::Model;
using tinyenc::testing::pretrained_model;
using tinyenc::testing::shell_quote;

// `count` texts of the order models' vocabulary (and a few pieces it lacks), of 0 to
// `longest_words` words, shuffled: lengths that differ, so that sorting and packing matter.
std::vector<std::string> varied_texts(size_t count, size_t longest_words, unsigned seed) {
  const std::vector<std::string> words = {
      "我", "你", "他",   "打", "追", "小明", "小红", "被", "了",    "老师", "医生",   "把",
      "狗", "猫", "喜欢", "看", "帮", "妈妈", "。",   "，", "Hello", "42",   "tinyenc"};
  std::mt19937 random(seed);
  std::vector<std::string> texts;
  for (size_t i = 0; i < count; ++i) {
    const size_t length = random() % (longest_words + 1);
    std::string text;
    for (size_t w = 0; w < length; ++w) text += words[random() % words.size()];
    texts.push_back(text);
  }
  return texts;
}

std::vector<float> floats(const nlohmann::json& values) {
  std::vector<float> result;
  for (const nlohmann::json& value : values) result.push_back(value.get<float>());
  return result;
}

// `tinyenc run --jsonl` on the texts as the lines of a file, one record per line.
std::vector<nlohmann::json> run_cli(const std::vector<std::string>& texts,
                                    const std::string& arguments) {
  const tinyenc::testing::TempFolder folder("public_corpus");
  const std::filesystem::path file = folder / "texts.txt";
  {
    std::ofstream out(file, std::ios::binary);
    for (const std::string& text : texts) out << text << "\n";
  }
  const tinyenc::testing::ProgramResult result = tinyenc::testing::run_tinyenc(
      "run --jsonl --threads 1 " + arguments + " -i " + shell_quote(file));
  EXPECT_EQ(result.exit_code, 0) << arguments << ": " << result.err;
  std::vector<nlohmann::json> records;
  std::stringstream lines(result.out);
  for (std::string line; std::getline(lines, line);) records.push_back(nlohmann::json::parse(line));
  return records;
}

// The CLI's records and the library's results: the same texts in the same order, the same
// floats bit for bit.
void expect_same(const std::vector<nlohmann::json>& records,
                 const std::vector<Model::Result>& results, const std::vector<std::string>& texts,
                 const std::string& what) {
  ASSERT_EQ(records.size(), texts.size()) << what;
  ASSERT_EQ(results.size(), texts.size()) << what;
  for (size_t i = 0; i < texts.size(); ++i) {
    const nlohmann::json& record = records[i];
    const Model::Result& result = results[i];
    const std::string at = what + " text " + std::to_string(i);
    EXPECT_EQ(record["text"], texts[i]) << at;
    EXPECT_EQ(result.index, i) << at;
    EXPECT_EQ(static_cast<int64_t>(record["ids"].size()), result.tokens) << at;
    EXPECT_EQ(record.value("chunks", int64_t{1}), result.chunks) << at;
    EXPECT_EQ(floats(record["embedding"]), result.embedding) << at;
    EXPECT_EQ(floats(record["logits"]), result.logits) << at;
    EXPECT_EQ(floats(record["probabilities"]), result.probabilities) << at;
    EXPECT_EQ(record["label"], result.label) << at;
  }
}

// run(), embed(), classify() and a Stream on `texts` with `options`, against `tinyenc run
// arguments` on the same texts; returns run()'s results.
std::vector<Model::Result> expect_library_runs_as_cli(const std::vector<std::string>& texts,
                                                      const std::string& arguments,
                                                      const Model::EmbedOptions& options,
                                                      bool normalize, const std::string& what) {
  const std::string model_folder = pretrained_model("order-rope").string();
  const std::vector<nlohmann::json> records =
      run_cli(texts, arguments + " -m " + shell_quote(model_folder));
  tinyenc::Options load;
  load.threads = 1;
  load.normalize = normalize;
  Model model = Model::load(model_folder, load);

  std::vector<Model::Result> results = model.run(texts, options);
  expect_same(records, results, texts, what + " run()");
  if (results.size() != texts.size()) return results;

  const std::vector<std::vector<float>> embeddings = model.embed(texts, options);
  const std::vector<tinyenc::Classification> labels = model.classify(texts, options);
  EXPECT_EQ(embeddings.size(), texts.size());
  EXPECT_EQ(labels.size(), texts.size());
  if (embeddings.size() != texts.size() || labels.size() != texts.size()) return results;
  for (size_t i = 0; i < texts.size(); ++i) {
    EXPECT_EQ(embeddings[i], results[i].embedding) << what << " embed() text " << i;
    EXPECT_EQ(labels[i].id, results[i].label_id) << what << " classify() text " << i;
    EXPECT_EQ(labels[i].label, results[i].label) << what << " classify() text " << i;
    EXPECT_EQ(labels[i].probabilities, results[i].probabilities) << what << " classify() " << i;
  }

  // Texts one by one: the results of a window arrive as soon as it fills, in input order.
  std::vector<Model::Result> streamed;
  Model::Stream stream =
      model.stream(options, [&](Model::Result& result) { streamed.push_back(std::move(result)); });
  for (size_t i = 0; i < texts.size(); ++i) {
    stream.add(texts[i]);
    const size_t window = static_cast<size_t>(options.window);
    EXPECT_EQ(streamed.size(), (i + 1) / window * window) << what << " stream after text " << i;
  }
  stream.flush();
  expect_same(records, streamed, texts, what + " stream");
  return results;
}

// How many results ran as more than one window, and the most tokens of one.
std::pair<size_t, int64_t> chunked_and_longest(const std::vector<Model::Result>& results) {
  size_t chunked = 0;
  int64_t longest = 0;
  for (const Model::Result& result : results) {
    chunked += result.chunks > 1;
    longest = std::max(longest, result.tokens);
  }
  return {chunked, longest};
}

TEST(PublicCorpus, DefaultsAreTheCommandLines) {
  const Model::EmbedOptions options;
  EXPECT_EQ(options.window, tinyenc::kDefaultWindow);
  EXPECT_EQ(options.max_batch_tokens, tinyenc::kDefaultMaxBatchTokens);
  EXPECT_EQ(options.max_batch_texts, tinyenc::kDefaultMaxBatchTexts);
  EXPECT_EQ(options.long_texts, "");
  EXPECT_EQ(options.overlap, 0);
}

// Short texts (at most 64 tokens), windows of 37 texts, batches of at most 200 tokens and 16
// texts: many windows and batches, each sorted by length.
TEST(PublicCorpus, WindowsAndBudgetsAsRun) {
  const std::vector<std::string> texts = varied_texts(300, 24, 7);
  Model::EmbedOptions options;
  options.window = 37;
  options.max_batch_tokens = 200;
  options.max_batch_texts = 16;
  const auto results = expect_library_runs_as_cli(
      texts, "--window 37 --max-batch-tokens 200 --batch-size 16", options, false, "windows");
  EXPECT_GT(chunked_and_longest(results).second, 20);  // lengths from 2 tokens to 20 and more
}

// The defaults of both (one window of 4096, batches of 1024 tokens), with normalization.
TEST(PublicCorpus, DefaultsAndNormalizeAsRun) {
  const std::vector<std::string> texts = varied_texts(200, 24, 11);
  const std::string model_folder = pretrained_model("order-rope").string();
  const std::vector<nlohmann::json> records =
      run_cli(texts, "--normalize -m " + shell_quote(model_folder));
  tinyenc::Options load;
  load.threads = 1;
  load.normalize = true;
  Model model = Model::load(model_folder, load);
  const std::vector<std::vector<float>> embeddings = model.embed(texts);
  const std::vector<tinyenc::Classification> labels = model.classify(texts);
  ASSERT_EQ(records.size(), texts.size());
  for (size_t i = 0; i < texts.size(); ++i) {
    EXPECT_EQ(floats(records[i]["embedding"]), embeddings[i]) << "text " << i;
    EXPECT_EQ(records[i]["label"], labels[i].label) << "text " << i;
    EXPECT_EQ(floats(records[i]["probabilities"]), labels[i].probabilities) << "text " << i;
  }
}

// Texts up to about 3 times the model's 64 positions, chunked with an overlap of 9 tokens: the
// windows' token-weighted means, the softmax of the mean logits, normalized as --normalize asks.
TEST(PublicCorpus, ChunksWithOverlapAsRun) {
  const std::vector<std::string> texts = varied_texts(250, 150, 13);
  Model::EmbedOptions options;
  options.window = 50;
  options.max_batch_tokens = 300;
  options.long_texts = "chunk";
  options.overlap = 9;
  const auto results = expect_library_runs_as_cli(
      texts, "--window 50 --max-batch-tokens 300 --long chunk --overlap 9", options, false,
      "chunk");
  const auto [chunked, longest] = chunked_and_longest(results);
  EXPECT_GT(chunked, 20u);
  EXPECT_GT(longest, 2 * 64);
  expect_library_runs_as_cli(
      texts, "--window 50 --max-batch-tokens 300 --long chunk --overlap 9 --normalize", options,
      true, "chunk normalized");
}

TEST(PublicCorpus, TruncatesAsRun) {
  const std::vector<std::string> texts = varied_texts(250, 90, 17);
  Model::EmbedOptions options;
  options.window = 64;
  options.max_batch_tokens = 256;
  options.max_batch_texts = 8;
  options.long_texts = "truncate";
  const auto results = expect_library_runs_as_cli(
      texts, "--window 64 --max-batch-tokens 256 --batch-size 8 --truncate", options, false,
      "truncate");
  size_t cut = 0;
  for (const Model::Result& result : results) cut += result.tokens == 64;
  EXPECT_GT(cut, 20u);  // texts longer than the model's 64 positions, cut to fit
}

// Long texts without a rule are refused, naming the input; options that cannot go together are
// bad input.
TEST(PublicCorpus, RefusalsAreBadInput) {
  tinyenc::Options load;
  load.threads = 1;
  Model model = Model::load(pretrained_model("order-rope").string(), load);
  std::string long_text;
  for (int i = 0; i < 50; ++i) long_text += "我打你";  // 150 tokens for 64 positions
  const std::vector<std::string> texts = {"我打你", long_text};
  const auto error_of = [&](const Model::EmbedOptions& options) -> std::string {
    try {
      model.run(texts, options);
    } catch (const tinyenc::Error& e) {
      EXPECT_EQ(e.kind(), tinyenc::Error::Kind::kBadInput) << e.what();
      return e.what();
    }
    ADD_FAILURE() << "ran";
    return "";
  };
  EXPECT_NE(error_of({}).find("input 2: "), std::string::npos);
  Model::EmbedOptions unknown;
  unknown.long_texts = "cut";
  EXPECT_NE(error_of(unknown).find("long_texts: expected error, truncate or chunk"),
            std::string::npos);
  Model::EmbedOptions overlap;
  overlap.overlap = 3;
  EXPECT_NE(error_of(overlap).find("overlap: only long_texts chunk"), std::string::npos);
  overlap.long_texts = "chunk";
  overlap.overlap = 62;
  EXPECT_NE(error_of(overlap).find("overlap 62: must be less than"), std::string::npos);
}

// A sink that throws stops the stream with the sink's own exception, untouched.
TEST(PublicCorpus, SinkExceptionsPassThrough) {
  tinyenc::Options load;
  load.threads = 1;
  Model model = Model::load(pretrained_model("order-rope").string(), load);
  Model::EmbedOptions options;
  options.window = 2;
  size_t seen = 0;
  Model::Stream stream = model.stream(options, [&](Model::Result&) {
    if (++seen == 2) throw std::logic_error("enough");
  });
  stream.add("我打你");
  EXPECT_THROW(stream.add("你打我"), std::logic_error);
  seen = 0;
  stream.add("小明");  // the stream goes on with the next window
  stream.flush();
  EXPECT_EQ(seen, 1u);
}

}  // namespace
