// `tinyenc run` on a corpus and `tinyenc bench --corpus`: records in input order whatever the
// sorting and windows, long texts (error, truncate, chunk against its windows run alone),
// contiguous shards of whole windows that concatenate to the whole run, the progress line, bench's
// JSON, and memory that does not grow with the corpus.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/cli.h"
#include "tests/support/run_program.h"
#include "tests/support/temp_folder.h"
#include "tests/support/test_data.h"

namespace tinyenc {
namespace {

using testing::pretrained_model;
using testing::ProgramResult;
using testing::run_tinyenc;
using testing::shell_quote;

std::vector<nlohmann::json> json_lines(const std::string& text) {
  std::vector<nlohmann::json> records;
  std::stringstream stream(text);
  for (std::string line; std::getline(stream, line);)
    records.push_back(nlohmann::json::parse(line));
  return records;
}

std::vector<nlohmann::json> run_jsonl(const std::string& arguments, const std::string& input = "") {
  const ProgramResult result = run_tinyenc(arguments + " --jsonl", input);
  EXPECT_EQ(result.exit_code, 0) << arguments << ": " << result.err;
  return json_lines(result.out);
}

void expect_close(const nlohmann::json& a, const nlohmann::json& b, double tolerance,
                  const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_NEAR(a[i].get<double>(), b[i].get<double>(), tolerance) << what << " [" << i << "]";
  }
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Texts of the order models' vocabulary, of lengths from 1 to 40 characters, shuffled.
std::string shuffled_lengths(size_t count, unsigned seed) {
  const std::vector<std::string> words = {"我", "你", "打", "小明", "小红", "被", "了", "老师"};
  std::mt19937 random(seed);
  std::string text;
  for (size_t i = 0; i < count; ++i) {
    const size_t length = 1 + random() % 40;
    for (size_t w = 0; w < length; ++w) text += words[random() % words.size()];
    text += "\n";
  }
  return text;
}

// Sorting by length and packing under a small token budget changes which texts share a batch,
// never which record answers which line: each record equals the text run alone, up to the
// rounding of other batch shapes.
TEST(CliCorpus, InputOrderRestoredAfterSorting) {
  const std::string texts = shuffled_lengths(40, 1);
  const std::string m = " --threads 1 -m " + pretrained_model("order-learned").string() + " -";
  const auto sorted = run_jsonl("run --max-batch-tokens 64" + m, texts);
  const auto single = run_jsonl("run --batch-size 1" + m, texts);
  ASSERT_EQ(sorted.size(), 40u);
  ASSERT_EQ(single.size(), 40u);
  for (size_t i = 0; i < sorted.size(); ++i) {
    EXPECT_EQ(sorted[i]["text"], single[i]["text"]) << i;
    EXPECT_EQ(sorted[i]["ids"], single[i]["ids"]) << i;
    EXPECT_EQ(sorted[i]["label"], single[i]["label"]) << i;
    expect_close(sorted[i]["embedding"], single[i]["embedding"], 1e-5,
                 "embedding " + std::to_string(i));
    expect_close(sorted[i]["logits"], single[i]["logits"], 1e-4, "logits " + std::to_string(i));
  }
  // The windows' boundaries do not show either: windows of 3 texts, the same records.
  const auto windows = run_jsonl("run --window 3 --max-batch-tokens 64" + m, texts);
  ASSERT_EQ(windows.size(), 40u);
  for (size_t i = 0; i < windows.size(); ++i) {
    EXPECT_EQ(windows[i]["text"], single[i]["text"]) << i;
    expect_close(windows[i]["embedding"], single[i]["embedding"], 1e-5,
                 "window embedding " + std::to_string(i));
  }
}

// 150 tokens of text for a model of 64 positions.
std::string long_text() {
  std::string text;
  for (int i = 0; i < 50; ++i) text += "我打你";
  return text;
}

// The chunked text's embedding and logits against the windows computed here: the text's ids (as
// `tokenize` gives them) cut into runs of 62 (64 positions less <s> and </s>), each run alone
// through `run --ids` with <s> and </s> around it, joined by the mean weighted by each run's
// length.
void check_chunks(int64_t overlap, const std::string& pooling) {
  const std::string m = " --threads 1 -m " + pretrained_model("order-learned").string() + pooling;
  const ProgramResult tokenized =
      run_tinyenc("tokenize --json -m " + pretrained_model("order-learned").string() + " '" +
                  long_text() + "'");
  ASSERT_EQ(tokenized.exit_code, 0) << tokenized.err;
  const std::vector<int32_t> ids = nlohmann::json::parse(tokenized.out)["inputs"][0]["ids"];
  ASSERT_EQ(ids.size(), 152u);  // <s> 150 </s>
  const std::vector<int32_t> content(ids.begin() + 1, ids.end() - 1);
  const int64_t capacity = 62;
  std::vector<std::vector<double>> embeddings, logits;
  std::vector<double> weights;
  for (int64_t start = 0;; start += capacity - overlap) {
    const int64_t end = std::min<int64_t>(start + capacity, static_cast<int64_t>(content.size()));
    std::vector<int32_t> window_ids = {ids.front()};
    window_ids.insert(window_ids.end(), content.begin() + start, content.begin() + end);
    window_ids.push_back(ids.back());
    std::ostringstream list;
    for (size_t i = 0; i < window_ids.size(); ++i) list << (i ? "," : "") << window_ids[i];
    const auto window = run_jsonl("run --ids " + list.str() + m);
    ASSERT_EQ(window.size(), 1u);
    embeddings.push_back(window[0]["embedding"].get<std::vector<double>>());
    logits.push_back(window[0]["logits"].get<std::vector<double>>());
    weights.push_back(static_cast<double>(end - start));
    if (end == static_cast<int64_t>(content.size())) break;
  }
  ASSERT_EQ(weights.size(), overlap == 0 ? 3u : 4u);
  const auto mean = [&](const std::vector<std::vector<double>>& rows) {
    std::vector<double> result(rows[0].size(), 0.0);
    double total = 0.0;
    for (size_t k = 0; k < rows.size(); ++k) {
      for (size_t i = 0; i < result.size(); ++i) result[i] += weights[k] * rows[k][i];
      total += weights[k];
    }
    for (double& value : result) value /= total;
    return result;
  };
  const std::vector<double> expected_embedding = mean(embeddings);
  const std::vector<double> expected_logits = mean(logits);
  // Each window alone in its batch (--batch-size 1): the same computation as --ids, bit for bit;
  // what is left is the float32 rounding of the mean.
  const auto chunked = run_jsonl("run --long chunk --batch-size 1 --overlap " +
                                 std::to_string(overlap) + m + " '" + long_text() + "'");
  ASSERT_EQ(chunked.size(), 1u);
  const nlohmann::json& record = chunked[0];
  EXPECT_EQ(record["chunks"], weights.size());
  EXPECT_EQ(record["ids"].size(), 152u);  // the whole text's tokens
  expect_close(record["embedding"], nlohmann::json(expected_embedding), 1e-6, "embedding");
  expect_close(record["logits"], nlohmann::json(expected_logits), 1e-5, "logits");
  const size_t best =
      std::max_element(expected_logits.begin(), expected_logits.end()) - expected_logits.begin();
  double top = expected_logits[best], sum = 0.0;
  for (double value : expected_logits) sum += std::exp(value - top);
  EXPECT_NEAR(record["probabilities"][best].get<double>(), 1.0 / sum, 1e-6);
  const nlohmann::json config =
      testing::read_json(pretrained_model("order-learned") / "config.json");
  EXPECT_EQ(record["label"], config["id2label"][std::to_string(best)]);
}

TEST(CliCorpus, ChunkIsTheWeightedMeanOfItsWindows) {
  check_chunks(0, "");
  check_chunks(30, " --pooling cls");
}

TEST(CliCorpus, LongTextsErrorTruncateAndBadOptions) {
  const std::string m = " --threads 1 -m " + pretrained_model("order-learned").string();
  const std::string text = " '" + long_text() + "'";
  ProgramResult result = run_tinyenc("run" + m + " 我打你" + text);
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("input 2: "), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("--long chunk"), std::string::npos) << result.err;
  EXPECT_EQ(result.out, "");
  // --truncate is --long truncate: 64 tokens, the same record either way.
  const auto cut = run_jsonl("run --long truncate" + m + text);
  const auto truncated = run_jsonl("run --truncate" + m + text);
  ASSERT_EQ(cut.size(), 1u);
  EXPECT_EQ(cut[0]["ids"].size(), 64u);
  EXPECT_EQ(cut, truncated);
  EXPECT_FALSE(cut[0].contains("chunks"));
  // A short text is one chunk and says nothing of chunks.
  const auto short_text = run_jsonl("run --long chunk" + m + " 我打你");
  ASSERT_EQ(short_text.size(), 1u);
  EXPECT_FALSE(short_text[0].contains("chunks"));
  for (const auto& [arguments, mentions] : std::vector<std::pair<std::string, std::string>>{
           {"--long chunk --overlap 62", "--overlap 62"},
           {"--long chunk --overlap 100", "--overlap 100"},
           {"--overlap 5", "--overlap"},
           {"--long cut", "--long"},
           {"--long chunk --truncate", "--truncate"},
           {"--long chunk --hidden-states", "--hidden-states"},
           {"--long chunk --pooling none", "pooling none"},
           {"--long chunk --pair", "--pair"}}) {
    result = run_tinyenc("run --jsonl " + arguments + m + text);
    EXPECT_EQ(result.exit_code, 2) << arguments;
    EXPECT_NE(result.err.find(mentions), std::string::npos) << arguments << ": " << result.err;
    EXPECT_EQ(testing::count_lines(result.err), 1) << result.err;
  }
  // 61 tokens of overlap leave one new token a window: slow, but allowed.
  EXPECT_EQ(run_tinyenc("run --long chunk --overlap 61" + m + text + " --jsonl").exit_code, 0);
}

TEST(CliCorpus, ShardsConcatenateToTheWholeRun) {
  const testing::TempFolder dir("tinyenc_cli_corpus");
  const std::filesystem::path file = dir / "texts.txt";
  std::string texts = shuffled_lengths(10, 2);
  texts.pop_back();  // the last line without "\n" is a line too
  write_file(file, texts);
  // Windows of 3 texts, batches of a few: the shards must batch exactly as the whole run does,
  // or the last bits of the floats differ.
  const std::string m = " --threads 1 --window 3 --max-batch-tokens 40 -m " +
                        pretrained_model("order-rope").string() + " -i " + shell_quote(file);
  for (const std::string format : {" --jsonl", ""}) {
    const ProgramResult whole = run_tinyenc("run" + m + format);
    ASSERT_EQ(whole.exit_code, 0) << whole.err;
    std::string joined;
    for (int shard = 0; shard < 3; ++shard) {
      const ProgramResult part =
          run_tinyenc("run --shard " + std::to_string(shard) + "/3" + m + format);
      ASSERT_EQ(part.exit_code, 0) << part.err;
      joined += part.out;
    }
    EXPECT_EQ(joined, whole.out) << format;
    // 10 lines are 4 windows of 3; 3 shards take windows 0, 1 and 2-3: lines 1-3, 4-6, 7-10.
    if (!format.empty()) {
      EXPECT_EQ(json_lines(run_tinyenc("run --shard 2/3" + m + format).out).size(), 4u);
    }
  }
  // More shards than windows: some are empty, and empty is their whole output.
  const ProgramResult empty = run_tinyenc("run --shard 0/20" + m + " --jsonl");
  EXPECT_EQ(empty.exit_code, 0) << empty.err;
  EXPECT_EQ(empty.out, "");
  for (const std::string bad : {"3/3", "1/0", "x/2", "-1/2", "1", "1/2/3", "/2", " 1/2"}) {
    const ProgramResult result = run_tinyenc("run --shard '" + bad + "'" + m);
    EXPECT_EQ(result.exit_code, 2) << bad;
    EXPECT_NE(result.err.find("--shard"), std::string::npos) << bad << ": " << result.err;
  }
  EXPECT_EQ(run_tinyenc("run --shard 0/2 --json" + m).exit_code, 2);
  EXPECT_EQ(run_tinyenc(
                "run --shard 0/2 --threads 1 -m " + pretrained_model("order-rope").string() + " -",
                "我\n")
                .exit_code,
            2);
}

TEST(CliCorpus, ProgressOnlyOnATerminalOrWhenAsked) {
  const std::string m = " --threads 1 -m " + pretrained_model("order-rope").string() + " --jsonl -";
  const std::string texts = shuffled_lengths(20, 3);
  const ProgramResult quiet = run_tinyenc("run" + m, texts);  // stderr is a pipe here
  EXPECT_EQ(quiet.exit_code, 0);
  EXPECT_EQ(quiet.err, "");
  const ProgramResult forced = run_tinyenc("run --progress" + m, texts);
  EXPECT_EQ(forced.exit_code, 0);
  EXPECT_NE(forced.err.find("texts/s"), std::string::npos) << forced.err;
  EXPECT_NE(forced.err.find("tokens/s"), std::string::npos) << forced.err;
  // Cleared at the end: the last thing written erases the line.
  EXPECT_EQ(forced.err.substr(forced.err.size() - 4), "\r\x1b[K");
  EXPECT_EQ(forced.out, quiet.out);
  EXPECT_EQ(run_tinyenc("run --progress --no-progress" + m, texts).exit_code, 2);
}

TEST(CliCorpus, BenchCorpusJson) {
  const testing::TempFolder dir("tinyenc_cli_corpus");
  const std::filesystem::path file = dir / "corpus.txt";
  const std::string texts = shuffled_lengths(100, 4);
  write_file(file, texts);
  const ProgramResult result =
      run_tinyenc("bench --corpus " + shell_quote(file) + " -m " +
                  pretrained_model("order-learned").string() + " --max-batch-tokens 128 -f json");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const nlohmann::json doc = nlohmann::json::parse(result.out);
  for (const char* key :
       {"corpus", "model", "dtype", "threads", "texts", "tokens", "computed_tokens",
        "padding_waste", "padding_waste_unsorted_32", "chunks", "seconds", "texts_per_second",
        "tokens_per_second", "stages", "peak_rss_bytes", "max_batch_tokens"}) {
    EXPECT_TRUE(doc.contains(key)) << key;
  }
  EXPECT_EQ(doc.size(), 16u);
  for (const char* stage :
       {"tokenize", "embed_pe", "qkv", "attention", "output_projection", "ffn", "norms", "head"}) {
    EXPECT_TRUE(doc["stages"].contains(stage)) << stage;
  }
  // The tokens `tokenize` counts, and the padding fixed batches of 32 would have computed.
  const ProgramResult tokenized =
      run_tinyenc("tokenize --json -m " + pretrained_model("order-learned").string() + " -i " +
                  shell_quote(file));
  ASSERT_EQ(tokenized.exit_code, 0) << tokenized.err;
  int64_t tokens = 0, unsorted = 0;
  std::vector<int64_t> lengths;
  const nlohmann::json tokenized_document = nlohmann::json::parse(tokenized.out);
  for (const auto& item : tokenized_document["inputs"]) {
    lengths.push_back(static_cast<int64_t>(item["ids"].size()));
    tokens += lengths.back();
  }
  for (size_t begin = 0; begin < lengths.size(); begin += 32) {
    const size_t end = std::min(lengths.size(), begin + 32);
    unsorted += static_cast<int64_t>(end - begin) *
                *std::max_element(lengths.begin() + begin, lengths.begin() + end);
  }
  EXPECT_EQ(doc["texts"], 100);
  EXPECT_EQ(doc["tokens"], tokens);
  EXPECT_EQ(doc["max_batch_tokens"], 128);
  EXPECT_EQ(doc["chunks"], 0);
  EXPECT_NEAR(doc["padding_waste_unsorted_32"].get<double>(),
              static_cast<double>(unsorted - tokens) / static_cast<double>(unsorted),
              1e-7);  // printed as float32
  // Sorted batches pad far less than unsorted ones, and never less than nothing.
  EXPECT_GE(doc["computed_tokens"].get<int64_t>(), tokens);
  EXPECT_LT(doc["padding_waste"].get<double>(), doc["padding_waste_unsorted_32"].get<double>());
  EXPECT_GT(doc["peak_rss_bytes"].get<int64_t>(), 0);
  const ProgramResult text = run_tinyenc("bench --corpus " + shell_quote(file) + " -m " +
                                         pretrained_model("order-learned").string() + " -f text");
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("padding"), std::string::npos) << text.out;
  EXPECT_EQ(run_tinyenc("bench --corpus " + shell_quote(file) + " -m " +
                        pretrained_model("order-learned").string() + " --threads 1,2")
                .exit_code,
            2);
}

// The peak resident set of `command` run by the shell, in bytes.
int64_t peak_rss_of(const std::string& command) {
  const pid_t child = ::fork();
  if (child == 0) {
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  struct rusage usage {};
  ::wait4(child, &status, 0, &usage);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << command;
  return static_cast<int64_t>(usage.ru_maxrss) * 1024;
}

// Windows bound the memory: twenty times the lines, the same peak within 10%.
TEST(CliCorpus, MemoryDoesNotGrowWithTheCorpus) {
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer's quarantine grows with the number of allocations, not with what is held.
  GTEST_SKIP() << "peak memory is not the program's own under AddressSanitizer";
#endif
  const testing::TempFolder dir("tinyenc_cli_corpus");
  const std::string line = "小明被小红打了\n";
  std::string small, large;
  for (int i = 0; i < 10000; ++i) small += line;
  for (int i = 0; i < 20; ++i) large += small;
  write_file(dir / "small.txt", small);
  write_file(dir / "large.txt", large);
  // The table (no vectors) into a file of the test's own: the output's size is not the point.
  const auto command = [&](const std::string& input) {
    return std::string(TINYENC_BINARY) + " run --threads 1 -m " +
           pretrained_model("order-learned").string() + " -i " + shell_quote(dir / input) + " > " +
           shell_quote(dir / "out.txt");
  };
  const int64_t small_rss = peak_rss_of(command("small.txt"));
  const int64_t large_rss = peak_rss_of(command("large.txt"));
  EXPECT_LT(static_cast<double>(large_rss), 1.1 * static_cast<double>(small_rss))
      << small_rss << " bytes for 10,000 lines, " << large_rss << " for 200,000";
}

}  // namespace
}  // namespace tinyenc
