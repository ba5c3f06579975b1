// `tinyenc order` end to end: the seed article's claim measured on real encoders. The golden
// model with no position encoding (and mean pooling) must not see any reordering at all, at any
// layer; models with one must. Then the reorderings each option asks for, the output formats,
// the pictures, and one line on stderr with exit code 2 for every kind of bad input.
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
#include "tools/tinyenc/plot/svg_check.h"

namespace {

using nlohmann::json;
using tinyenc::plot::check_svg;
using tinyenc::plot::SvgCheck;

// A folder that the tests of this file share, removed when the program exits.
const std::filesystem::path& scratch() {
  static const tinyenc::testing::TempFolder folder("tinyenc_cli_order_test", "CliOrder");
  return folder.path();
}

using Result = tinyenc::testing::ProgramResult;
using tinyenc::testing::read_text;
using tinyenc::testing::run_tinyenc;
using tinyenc::testing::shell_quote;

Result order(const std::string& arguments) { return run_tinyenc("order " + arguments); }

// A golden encoder folder (config.json + model.safetensors, no tokenizer: --ids only).
std::string golden(const std::string& name) {
  return "-m " + shell_quote(tinyenc::testing::source_dir() / "tests/golden/encoders" / name);
}

json results_of(const Result& result) {
  EXPECT_EQ(result.exit_code, 0) << result.err;
  const json document = json::parse(result.out);
  EXPECT_TRUE(document.contains("results"));
  return document["results"];
}

// Outputs of a model without position information, for the same tokens in another order, differ
// only by float rounding (sums in other orders, other kernel tiles): each element within the
// encoder bound of tests/support/float_tolerance.h for two layers, 18 ulps at 8, above every
// value compared (1.7e-5). A vector is at least as long as its largest element (above 1 for these
// LayerNorm outputs and their means), and 1 - cos <= sin^2 <= |difference|^2 / |vector|^2: the
// cosine distance stays below d_model (at most 64 here) times that bound squared, 1.9e-8.
// (Measured: 2e-14, the double precision the distance is taken in.) Any order information the model
// sees gives distances above 1e-5.
const double kBlindCosineDistance =
    64 * std::pow(tinyenc::testing::encoder_rounding_bound(8, 2), 2);

// The golden "none" model's logits: its classifier rows sum |weights| to 2.8 at most and its
// hidden states stay below 4.2, so its logits are sums of less than 12 in magnitude.
const double kGoldenNoneLogitBound = tinyenc::testing::encoder_rounding_bound(12, 2);

// The cell values of an attention figure (its hover titles, "A → B: 0.1234"), in drawing order:
// the labels must match exactly; the values, printed with four decimals, may differ by one unit
// of the last (1e-4; 1.5e-4 allows for reading the decimals back) where float rounding moved a
// probability across a printing boundary. Cells of other tokens differ by far more.
void expect_same_cells(const std::vector<std::string>& titles, size_t first, size_t second,
                       size_t count) {
  for (size_t i = 0; i < count; ++i) {
    const std::string& a = titles[first + i];
    const std::string& b = titles[second + i];
    const size_t colon_a = a.rfind(": "), colon_b = b.rfind(": ");
    ASSERT_NE(colon_a, std::string::npos) << a;
    ASSERT_NE(colon_b, std::string::npos) << b;
    EXPECT_EQ(a.substr(0, colon_a), b.substr(0, colon_b)) << i;
    EXPECT_NEAR(std::stod(a.substr(colon_a + 2)), std::stod(b.substr(colon_b + 2)), 1.5e-4)
        << a << " / " << b;
  }
}

// A BERT-style folder of our own: a golden encoder (vocabulary of 50) with a vocab.txt that
// knows 小明 小红 打了 as words (WordPiece still cuts Chinese into characters) and not 狗 咬 人.
std::filesystem::path chinese_folder(const std::string& encoder = "none") {
  const std::filesystem::path dir = scratch() / ("chinese-" + encoder);
  if (std::filesystem::exists(dir / "vocab.txt")) return dir;
  std::filesystem::create_directories(dir);
  const std::filesystem::path golden = tinyenc::testing::source_dir() / "tests/golden/encoders";
  for (const char* file : {"config.json", "model.safetensors"}) {
    std::filesystem::copy_file(golden / encoder / file, dir / file);
  }
  std::ofstream(dir / "vocab.txt") << "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n我\n打\n你\n小\n明\n红\n"
                                      "被\n了\n追\nthe\ncat\nsat\non\nmat\nxiaoming\nhit\n"
                                      "xiaohong\n小明\n小红\n打了\n##s\n";
  return dir;
}

std::vector<std::string> texts_of(const json& results, const char* key) {
  std::vector<std::string> texts;
  for (const json& result : results) texts.push_back(result[key].get<std::string>());
  return texts;
}

TEST(CliOrder, WithoutPositionEncodingNoReorderingIsSeen) {
  // Every order of five tokens: the mean-pooled output and every token's hidden state at every
  // layer are the same, up to float rounding. The label cannot flip: the top two logits are at
  // least 4e-3 apart for every order, far beyond rounding.
  const json results =
      results_of(order(golden("none") + " --ids 5,9,13,21,7 -p permutations --json"));
  ASSERT_EQ(results.size(), 119u);  // 5! - 1
  for (const json& result : results) {
    EXPECT_EQ(result["pe"], "none");
    EXPECT_LE(result["cosine_distance"].get<double>(), kBlindCosineDistance) << result.dump();
    EXPECT_LE(result["max_abs_logit_delta"].get<double>(), kGoldenNoneLogitBound) << result.dump();
    EXPECT_FALSE(result["label_flipped"].get<bool>());
    EXPECT_EQ(result["layer_alignment"], "token");
    ASSERT_EQ(result["layer_distances"].size(), 3u);  // embeddings, after layer 1, after layer 2
    for (const json& distance : result["layer_distances"]) {
      EXPECT_LE(distance.get<double>(), kBlindCosineDistance);
    }
  }
}

TEST(CliOrder, RotaryEncodingSeesOrderInsideAttentionOnly) {
  const json results =
      results_of(order(golden("rope_half") + " --ids 1,7,13,19,25,31,37 -p reverse --json"));
  ASSERT_EQ(results.size(), 1u);
  const json& result = results[0];
  EXPECT_EQ(result["pe"], "rope");
  EXPECT_EQ(result["perturbation"], "reverse");
  EXPECT_EQ(result["perturbed_text"], "37,31,25,19,13,7,1");
  EXPECT_EQ(result["order"], json({6, 5, 4, 3, 2, 1, 0}));
  EXPECT_GT(result["cosine_distance"].get<double>(), 1e-3);
  // RoPE rotates q and k inside attention: the embeddings (layer 0) carry no position at all.
  // Exactly: the embedding kernel computes each row from its token alone, with the same float
  // operations for every row, so a token's embedding is the same bits wherever it stands.
  EXPECT_EQ(result["layer_distances"][0].get<double>(), 0.0);
  EXPECT_GT(result["layer_distances"][2].get<double>(), 1e-4);
}

TEST(CliOrder, LearnedPositionsEnterAtTheEmbeddings) {
  const json results =
      results_of(order(golden("learned_roberta") + " --ids 1,7,13,19,25 --positions 0,4 --json"));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0]["perturbation"], "swap 0,4");
  EXPECT_GT(results[0]["layer_distances"][0].get<double>(), 1e-2);
  EXPECT_GT(results[0]["cosine_distance"].get<double>(), 1e-3);
}

TEST(CliOrder, AlibiCannotSeeAReversalButSeesASwap) {
  // ALiBi's bias -m|i - j| is the same for a sequence and its mirror image.
  const json reversed =
      results_of(order(golden("alibi") + " --ids 1,7,13,19,25 -p reverse --json"));
  EXPECT_LE(reversed[0]["cosine_distance"].get<double>(), kBlindCosineDistance);
  const json swapped =
      results_of(order(golden("alibi") + " --ids 1,7,13,19,25 --positions 0,1 --json"));
  EXPECT_GT(swapped[0]["cosine_distance"].get<double>(), 1e-5);  // 500 x kBlindCosineDistance
}

TEST(CliOrder, PerturbationsMakeTheRightReorderings) {
  // Every swap of 4 tokens: 6; with a repeated id the swap of the two equal ones changes nothing
  // and is left out.
  json results = results_of(order(golden("none") + " --ids 1,2,3,4 --json"));
  ASSERT_EQ(results.size(), 6u);
  EXPECT_EQ(results[0]["perturbation"], "swap 0,1");
  EXPECT_EQ(results[0]["perturbed_text"], "2,1,3,4");
  EXPECT_EQ(results[5]["perturbation"], "swap 2,3");
  EXPECT_EQ(results_of(order(golden("none") + " --ids 1,2,1,4 --json")).size(), 5u);

  results = results_of(order(golden("none") + " --ids 1,2,3,4 -p permutations --json"));
  EXPECT_EQ(results.size(), 23u);

  // Shuffles: as many as asked, none the original, the same for the same seed.
  const std::string shuffle = golden("none") + " --ids 1,2,3,4,5,6 -p shuffle --shuffles 5 --json";
  results = results_of(order(shuffle + " --seed 7"));
  ASSERT_EQ(results.size(), 5u);
  for (const json& result : results) EXPECT_NE(result["perturbed_text"], "1,2,3,4,5,6");
  // The same run again: the same computation on the same data, hence the same bits.
  EXPECT_EQ(results, results_of(order(shuffle + " --seed 7")));
  EXPECT_NE(results, results_of(order(shuffle + " --seed 8")));
}

TEST(CliOrder, SeveralModelsAndSentencesInOneRun) {
  const Result result = order(golden("none") + " " + golden("rope_half") +
                              " --ids 1,2,3 --ids 4,5,6,7 -p reverse --json");
  const json results = results_of(result);
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(results[0]["text"], "1,2,3");
  EXPECT_EQ(results[1]["text"], "4,5,6,7");
  EXPECT_EQ(results[2]["pe"], "rope");
  for (const char* key :
       {"model", "pe", "text", "perturbation", "perturbed_text", "cosine_distance",
        "max_abs_logit_delta", "label", "perturbed_label", "layer_distances"}) {
    EXPECT_TRUE(results[0].contains(key)) << key;
  }
  EXPECT_EQ(results[0]["label"], "c");  // id2label of the golden config: a, b, c
}

TEST(CliOrder, TableShowsModelsAsRows) {
  const Result result =
      order(golden("none") + " " + golden("rope_half") + " --ids 1,7,13,19,25,31,37 -p reverse");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.err, "");
  EXPECT_NE(result.out.find("1,7,13,19,25,31,37  \u2192  37,31,25,19,13,7,1  (reverse, by token)"),
            std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("\n  none       none "), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("\n  rope_half  rope "), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("cos distance"), std::string::npos);

  // Several reorderings: means, the largest, and how many flipped the label.
  const Result swaps = order(golden("none") + " --ids 1,2,3,4");
  ASSERT_EQ(swaps.exit_code, 0) << swaps.err;
  EXPECT_NE(swaps.out.find("6 reorderings"), std::string::npos) << swaps.out;
  EXPECT_NE(swaps.out.find("0/6"), std::string::npos) << swaps.out;
}

TEST(CliOrder, CompareTakesTheSentencesInPairs) {
  json results = results_of(
      order(golden("none") + " --compare --ids 1,2,3 --ids 3,1,2 --ids 1,2,3 --ids 1,2,4 --json"));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0]["perturbation"], "compare");
  EXPECT_EQ(results[0]["perturbed_text"], "3,1,2");
  EXPECT_LE(results[0]["cosine_distance"].get<double>(), kBlindCosineDistance);
  EXPECT_EQ(results[0]["layer_alignment"], "token");             // B is A rearranged
  EXPECT_EQ(results[1]["layer_alignment"], "mean");              // a different token: no alignment
  EXPECT_GT(results[1]["cosine_distance"].get<double>(), 1e-6);  // 50 x kBlindCosineDistance

  const Result table = order(golden("none") + " --compare --ids 1,2,3 --ids 3,1,2");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("A: 1,2,3\nB: 3,1,2\n"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("label A"), std::string::npos);
}

TEST(CliOrder, CsvHasARowPerReordering) {
  const Result result = order(golden("none") + " --ids 1,2,3 --csv");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  std::vector<std::string> lines;
  std::stringstream stream(result.out);
  for (std::string line; std::getline(stream, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 4u);  // header + 3 swaps
  EXPECT_EQ(lines[0],
            "model,pe,text,perturbation,perturbed_text,cosine_distance,max_abs_logit_delta,label,"
            "perturbed_label,label_flipped,layer_alignment,unknown_only,unknown,perturbed_unknown,"
            "layer_0,layer_1,layer_2");
  EXPECT_NE(lines[1].find(",none,\"1,2,3\",\"swap 0,1\",\"2,1,3\","), std::string::npos)
      << lines[1];
}

TEST(CliOrder, OutputFileIsWrittenWhole) {
  const std::filesystem::path file = scratch() / "order.json";
  const Result result = order(golden("none") + " --ids 1,2,3 --json -o " + shell_quote(file));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(json::parse(read_text(file))["results"].size(), 3u);
  for (const auto& entry : std::filesystem::directory_iterator(scratch())) {
    EXPECT_EQ(entry.path().filename().string().find("tinyenc-tmp"), std::string::npos)
        << entry.path();
  }
}

TEST(CliOrder, PlotDrawsTheArticlesFigureForEveryModel) {
  const std::filesystem::path dir = scratch() / "pictures";
  const Result result = order(golden("none") + " " + golden("rope_half") +
                              " --ids 3,4,5,6 -p reverse --plot-dir " + shell_quote(dir));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  for (const char* name : {"none-attention.svg", "rope_half-attention.svg"}) {
    const SvgCheck check = check_svg(read_text(dir / name));
    ASSERT_TRUE(check.ok()) << name << ": " << check.error;
    // 4 heads x (A, B, B in A's order) x 4 x 4 tokens.
    EXPECT_EQ(check.count("cell"), 4 * 3 * 16) << name;
    EXPECT_GT(check.width, 0);
    EXPECT_NE(check.text.find("A: 3,4,5,6"), std::string::npos);
    EXPECT_NE(check.text.find("B: 6,5,4,3"), std::string::npos);
  }
  const SvgCheck summary = check_svg(read_text(dir / "summary.svg"));
  ASSERT_TRUE(summary.ok()) << summary.error;
  EXPECT_EQ(summary.count("bar"), 2);
  const SvgCheck layers = check_svg(read_text(dir / "layers.svg"));
  ASSERT_TRUE(layers.ok()) << layers.error;
  EXPECT_EQ(layers.count("series"), 2);
  EXPECT_EQ(layers.count("point"), 2 * 3);
}

TEST(CliOrder, NoPositionEncodingDrawsThePermutedMatrixBackIdentical) {
  // The third panel of the figure is the second put back in the first's token order: for an
  // order-blind model its cells (their hover values) repeat the first panel's exactly.
  const std::filesystem::path dir = scratch() / "blind";
  const Result result =
      order(golden("none") + " --ids 3,4,5 -p reverse --plot-dir " + shell_quote(dir));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string svg = read_text(dir / "none-attention.svg");
  std::vector<std::string> titles;
  for (size_t at = svg.find("<title>"); at != std::string::npos; at = svg.find("<title>", at + 1)) {
    titles.push_back(svg.substr(at, svg.find("</title>", at) - at));
  }
  // Panels are drawn one after another, each head by head: A, then B, then B in A's order. Not
  // bit for bit: B's softmax and scores sum the keys in another order.
  ASSERT_EQ(titles.size(), 3u * 4 * 9);
  const size_t panel = 4 * 9;
  expect_same_cells(titles, 0, 2 * panel, panel);
}

TEST(CliOrder, TextsWithATokenizer) {
  TINYENC_REQUIRE_TESTDATA(testdata);
  const std::string model = "-m " + shell_quote(testdata / "models/tiny_bert");
  // Words: 6 words, 15 swaps less the one that exchanges the two "the".
  json results = results_of(order(model + " 'the cat sat on the mat' --json"));
  ASSERT_EQ(results.size(), 14u);
  EXPECT_EQ(results[0]["perturbed_text"], "cat the sat on the mat");
  EXPECT_EQ(results[0]["unit"], "word");
  EXPECT_EQ(results[0]["pe"], "learned");
  EXPECT_TRUE(results[0]["label"].is_null());  // BertModel: no classification head
  EXPECT_TRUE(results[0]["max_abs_logit_delta"].is_null());
  EXPECT_EQ(results[0]["layer_alignment"], "token");  // each word tokenizes on its own
  EXPECT_GT(results[0]["layer_distances"][0].get<double>(), 1e-3);

  // Characters reversed tokenize differently: each layer's mean state is compared instead.
  results = results_of(order(model + " --unit char -p reverse 'the cat' --json"));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0]["perturbed_text"], "tac eht");
  EXPECT_EQ(results[0]["layer_alignment"], "mean");

  // Tokens: ids permuted directly, [CLS] and [SEP] left where they are.
  results = results_of(order(model + " --unit token -p reverse 'on the' --json"));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0]["perturbed_text"], "the on");
  EXPECT_EQ(results[0]["layer_alignment"], "token");

  // --models takes the folders; what follows them and is not a folder is a sentence.
  const Result models = order("--models " + shell_quote(testdata / "models/tiny_bert") +
                              " 'on the' -p reverse --json");
  EXPECT_EQ(results_of(models).size(), 1u);

  // Text that is not UTF-8 is bad input.
  const std::filesystem::path invalid = scratch() / "invalid.txt";
  std::ofstream(invalid) << "caf\xc3 au lait\n";
  const Result bad = order(model + " -i " + shell_quote(invalid));
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_EQ(bad.err.rfind("tinyenc: error: ", 0), 0u) << bad.err;

  const Result table = order(model + " --unit char -p reverse 'the cat'");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find(" *\n"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("* the reordered text is not a rearrangement of the original's tokens"),
            std::string::npos);
}

TEST(CliOrder, ChineseCharactersAreWords) {
  TINYENC_REQUIRE_TESTDATA(testdata);
  const std::string model = "-m " + shell_quote(testdata / "models/tiny_bert");
  const json results = results_of(order(model + " 我打你 -p reverse --json"));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0]["perturbed_text"], "你打我");
  const Result file_input = order(model + " -p reverse --json -i " + shell_quote([] {
                                    const std::filesystem::path path = scratch() / "sentences.txt";
                                    std::ofstream(path) << "我打你\r\nyou hit me\n";
                                    return path;
                                  }()));
  const json from_file = results_of(file_input);
  ASSERT_EQ(from_file.size(), 2u);
  EXPECT_EQ(from_file[1]["perturbed_text"], "me hit you");
}

TEST(CliOrder, ShippedModelsTellWhoHitWhom) {
  // The README's first command on the shipped "who did it?" models (committed under
  // models/pretrained, so a missing one fails): the order-blind model answers both sentences of a
  // pair alike, every other one names the agent of each.
  const std::filesystem::path pretrained = tinyenc::testing::source_dir() / "models/pretrained";
  const std::vector<std::string> kinds = {"none", "sinusoidal", "learned",
                                          "rope", "alibi",      "relative"};
  std::string models;
  for (const std::string& kind : kinds) {
    std::string folder = "order-";
    folder += kind;
    ASSERT_TRUE(std::filesystem::exists(pretrained / folder / "config.json"))
        << "missing committed model " << pretrained / folder / "config.json";
    models += ' ';
    models += shell_quote(pretrained / folder);
  }
  const json results = results_of(
      order("--compare --json --models" + models + " -- 我打你 你打我 小明追小红 小红追小明"));
  ASSERT_EQ(results.size(), 2 * kinds.size());
  const std::vector<std::pair<std::string, std::string>> agents = {
      {"我/I", "你/you"}, {"小明/Xiaoming", "小红/Xiaohong"}};
  for (size_t m = 0; m < kinds.size(); ++m) {
    for (size_t pair = 0; pair < 2; ++pair) {
      const json& result = results[2 * m + pair];
      EXPECT_EQ(result["pe"], kinds[m]);
      EXPECT_EQ(result["layer_alignment"], "token") << result.dump();
      if (kinds[m] == "none") {
        // Blind: the same answer twice (the top two logits are 0.034 and 0.48 apart), and no
        // distance anywhere beyond rounding.
        EXPECT_LE(result["cosine_distance"].get<double>(), kBlindCosineDistance) << result.dump();
        EXPECT_FALSE(result["label_flipped"].get<bool>()) << result.dump();
        for (const json& distance : result["layer_distances"]) {
          EXPECT_LE(distance.get<double>(), kBlindCosineDistance) << result.dump();
        }
      } else {
        EXPECT_EQ(result["label"], agents[pair].first) << result.dump();
        EXPECT_EQ(result["perturbed_label"], agents[pair].second) << result.dump();
        EXPECT_GT(result["cosine_distance"].get<double>(), 1e-3) << result.dump();
      }
    }
  }
}

TEST(CliOrder, SentenceMarksStayInPlace) {
  // The shipped models wrap every text in <s> ... </s>. Reordering moves the text's tokens only,
  // so reversing the words of 我打你 is not reversing the sequence: ALiBi's -m|i - j| sees it.
  const std::filesystem::path pretrained = tinyenc::testing::source_dir() / "models/pretrained";
  for (const char* folder : {"order-none", "order-alibi"}) {
    ASSERT_TRUE(std::filesystem::exists(pretrained / folder / "config.json"))
        << "missing committed model " << pretrained / folder / "config.json";
  }
  const std::string none = "-m " + shell_quote(pretrained / "order-none");
  const std::string alibi = "-m " + shell_quote(pretrained / "order-alibi");
  for (const char* unit : {"word", "char", "token"}) {
    const json blind =
        results_of(order(none + " --unit " + std::string(unit) + " -p permutations 我打你 --json"));
    ASSERT_EQ(blind.size(), 5u) << unit;  // 3! - 1
    for (const json& result : blind) {
      EXPECT_EQ(result["layer_alignment"], "token") << unit << result.dump();
      EXPECT_LE(result["cosine_distance"].get<double>(), kBlindCosineDistance)
          << unit << result.dump();
      for (const json& distance : result["layer_distances"]) {
        EXPECT_LE(distance.get<double>(), kBlindCosineDistance) << unit << result.dump();
      }
    }
    const json reversed =
        results_of(order(alibi + " --unit " + std::string(unit) + " -p reverse 我打你 --json"));
    ASSERT_EQ(reversed.size(), 1u);
    EXPECT_EQ(reversed[0]["perturbed_text"], std::string(unit) == "token" ? "你 打 我" : "你打我");
    EXPECT_EQ(reversed[0]["layer_alignment"], "token");
    EXPECT_GT(reversed[0]["cosine_distance"].get<double>(), 1e-3) << unit;
    EXPECT_TRUE(reversed[0]["label_flipped"].get<bool>()) << unit;
  }

  // --ids: the folder's tokenizer says which ids are <s> and </s>, and they stay in place too.
  // The ids of 我打你 are the ones training used (heldout_golden.json).
  const json golden_sentences =
      json::parse(read_text(pretrained / "order-alibi/heldout_golden.json"))["sentences"];
  std::vector<int> ids;
  for (const json& sentence : golden_sentences) {
    if (sentence["text"] == "我打你") ids = sentence["ids"].get<std::vector<int>>();
  }
  ASSERT_EQ(ids.size(), 5u);  // <s> 我 打 你 </s>
  const auto join = [](const std::vector<int>& numbers) {
    std::string text;
    for (int number : numbers) {
      if (!text.empty()) text += ',';
      text += std::to_string(number);
    }
    return text;
  };
  const json by_ids = results_of(order(alibi + " -p reverse --json --ids " + join(ids)));
  ASSERT_EQ(by_ids.size(), 1u);
  EXPECT_EQ(by_ids[0]["perturbed_text"], join({ids[0], ids[3], ids[2], ids[1], ids[4]}));
  EXPECT_TRUE(by_ids[0]["label_flipped"].get<bool>());
  const json by_text = results_of(order(alibi + " --unit token -p reverse 我打你 --json"));
  // The same ids in the same shapes: the same computation, hence the same bits.
  EXPECT_EQ(by_ids[0]["cosine_distance"].get<double>(),
            by_text[0]["cosine_distance"].get<double>());

  // Figure 1 with the marks: B put back in A's order is A itself for the order-blind model.
  const std::filesystem::path dir = scratch() / "marks";
  const Result result = order(none + " -p reverse 我打你 --plot-dir " + shell_quote(dir));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string svg = read_text(dir / "order-none-attention.svg");
  std::vector<std::string> titles;
  for (size_t at = svg.find("<title>"); at != std::string::npos; at = svg.find("<title>", at + 1)) {
    titles.push_back(svg.substr(at, svg.find("</title>", at) - at));
  }
  const size_t panel = 4 * 5 * 5;  // 4 heads x (<s> 我 打 你 </s>)^2
  ASSERT_EQ(titles.size(), 3 * panel);
  expect_same_cells(titles, 0, 2 * panel, panel);
  EXPECT_NE(titles[0].find("&lt;s&gt;"), std::string::npos) << titles[0];
}

TEST(CliOrder, WordsAreTheVocabularysWords) {
  const std::string model = "-m " + shell_quote(chinese_folder());
  // 小明 小红 打了 are words of the vocabulary: four units, six swaps, 小明 moving whole.
  json results = results_of(order(model + " 小明被小红打了 --json"));
  EXPECT_EQ(texts_of(results, "perturbed_text"),
            (std::vector<std::string>{"被小明小红打了", "小红被小明打了", "打了被小红小明",
                                      "小明小红被打了", "小明打了小红被", "小明被打了小红"}));
  for (const json& result : results) {
    EXPECT_EQ(result["layer_alignment"], "token") << result.dump();
    EXPECT_EQ(result["unit"], "word");
  }
  // Spaces between Chinese words are the person's cut, whatever the vocabulary knows.
  results = results_of(order(model + " '小明 被 小 红' --json"));
  ASSERT_EQ(results.size(), 6u);
  EXPECT_EQ(results[0]["perturbed_text"], "被 小明 小 红");
  // Mixed text: English at spaces, Chinese by the vocabulary.
  results = results_of(order(model + " 'xiaoming 打了小红' --json"));
  EXPECT_EQ(
      texts_of(results, "perturbed_text"),
      (std::vector<std::string>{"打了 xiaoming小红", "小红 打了xiaoming", "xiaoming 小红打了"}));
  // English words swapped: each token followed to its new place.
  results = results_of(order(model + " 'xiaoming hit xiaohong' --json"));
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[2]["perturbed_text"], "xiaoming xiaohong hit");
  // Characters remain for those who ask: seven, 小 twice, 21 swaps less the one of the two 小.
  EXPECT_EQ(results_of(order(model + " --unit char 小明被小红打了 --json")).size(), 20u);
}

TEST(CliOrder, EnglishWordSwapsFollowEachToken) {
  // sentencepiece's "▁hit" carries the space before the word; the first word has none. A swap
  // still rearranges the same tokens, so every token is followed to its new place. Then layer 0
  // shows what a position added to the embeddings does: far from 0 for sinusoidal, exactly 0 for
  // RoPE (a token's embedding is the same bits wherever it stands).
  const std::filesystem::path pretrained = tinyenc::testing::source_dir() / "models/pretrained";
  const json results =
      results_of(order("--json -m " + shell_quote(pretrained / "order-sinusoidal") + " -m " +
                       shell_quote(pretrained / "order-rope") + " -- 'Xiaoming hit Xiaohong'"));
  ASSERT_EQ(results.size(), 6u);  // 3 swaps x 2 models
  for (const json& result : results) {
    EXPECT_EQ(result["layer_alignment"], "token") << result.dump();
    const double layer0 = result["layer_distances"][0].get<double>();
    if (result["pe"] == "sinusoidal") {
      EXPECT_GT(layer0, 1e-3) << result.dump();  // measured: 0.012 to 0.025
    } else {
      EXPECT_EQ(layer0, 0.0) << result.dump();
    }
  }
  const Result table =
      order("-m " + shell_quote(pretrained / "order-sinusoidal") + " -- 'Xiaoming hit Xiaohong'");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_EQ(table.out.find(" *\n"), std::string::npos) << table.out;
  EXPECT_EQ(table.out.find("not a rearrangement"), std::string::npos) << table.out;
}

TEST(CliOrder, UnknownWordsGetNoVerdict) {
  const std::string model = "-m " + shell_quote(chinese_folder());
  // 狗 咬 人 are all [UNK]: to the model 狗咬人 and 人咬狗 are the same three tokens.
  Result result = order(model + " --compare 狗咬人 人咬狗 小明打狗 狗打小明 --json");
  json results = results_of(result);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0]["unknown"], json({"狗", "咬", "人"}));
  EXPECT_EQ(results[0]["perturbed_unknown"], json({"人", "咬", "狗"}));
  EXPECT_TRUE(results[0]["unknown_only"].get<bool>());
  EXPECT_TRUE(results[0]["label_flipped"].is_null()) << results[0].dump();
  EXPECT_NE(
      results[0]["note"].get<std::string>().find("the words that moved are unknown to the model"),
      std::string::npos);
  EXPECT_EQ(results[0]["cosine_distance"].get<double>(), 0.0);  // the same ids: the same bits
  // 小明 moved past 打: the model sees that, whatever 狗 is.
  EXPECT_EQ(results[1]["unknown"], json({"狗"}));
  EXPECT_FALSE(results[1]["unknown_only"].get<bool>());
  EXPECT_TRUE(results[1]["label_flipped"].is_boolean());
  EXPECT_FALSE(results[1].contains("note"));
  // One warning line: 3 + 3 + 1 + 1 unknown tokens in the 4 texts.
  EXPECT_EQ(result.err,
            "tinyenc: warning: chinese-none: 8 tokens in 4 of 4 texts unknown to the vocabulary "
            "([UNK], id 1): '狗' '咬' '人'; the model sees them all as one token, so what it says "
            "of them is a guess\n");

  const Result table = order(model + " --compare 狗咬人 人咬狗");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("unknown to the vocabulary ([UNK]): A '狗' '咬' '人'; B '人' '咬' '狗'"),
            std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find(" (no verdict \u2020)"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("\u2020 B differs from A only in tokens the vocabulary does not know"),
            std::string::npos)
      << table.out;

  // Reorderings of it: all three swaps move unknown tokens only, and none counts as a flip.
  const Result swaps = order(model + " 狗咬人");
  ASSERT_EQ(swaps.exit_code, 0) << swaps.err;
  EXPECT_NE(swaps.out.find("0/0 (3 no verdict \u2020)"), std::string::npos) << swaps.out;
  const Result csv = order(model + " 狗咬人 --positions 0,2 --csv");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_NE(csv.out.find(",,token,true,狗 咬 人,人 咬 狗,"), std::string::npos) << csv.out;
}

TEST(CliOrder, FiguresSayWhenTokensCannotBeFollowed) {
  // "the cat" reversed by character is "tac eht", two [UNK]s: not a rearrangement of the tokens.
  const std::filesystem::path dir = scratch() / "unaligned";
  const Result result = order("-m " + shell_quote(chinese_folder()) + " --unit char -p reverse " +
                              "'the cat' --plot-dir " + shell_quote(dir));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find(" *\n"), std::string::npos) << result.out;
  const SvgCheck attention = check_svg(read_text(dir / "chinese-none-attention.svg"));
  ASSERT_TRUE(attention.ok()) << attention.error;
  // A and B drawn (4 heads x 4 x 4 tokens each), the third panel a note in their place.
  EXPECT_EQ(attention.count("cell"), 4 * 2 * 16);
  EXPECT_NE(attention.text.find("B in A's token order"), std::string::npos);
  // The note is wrapped into lines, which the text read back runs together.
  for (const char* words :
       {"Not drawn: B's tokens are not", "a rearrangement of A's", "mean hidden states."}) {
    EXPECT_NE(attention.text.find(words), std::string::npos) << words << "\n" << attention.text;
  }
  const SvgCheck layers = check_svg(read_text(dir / "layers.svg"));
  ASSERT_TRUE(layers.ok()) << layers.error;
  EXPECT_NE(layers.text.find("chinese-none * (none)"), std::string::npos) << layers.text;
  EXPECT_NE(layers.text.find("* chinese-none: 1 of 1 reorderings are not a rearrangement of its "
                             "tokens"),
            std::string::npos)
      << layers.text;

  // Aligned, the figure has its three panels and layers.svg no mark.
  const std::filesystem::path aligned = scratch() / "aligned";
  ASSERT_EQ(order("-m " + shell_quote(chinese_folder()) + " -p reverse 'the cat' --plot-dir " +
                  shell_quote(aligned))
                .exit_code,
            0);
  EXPECT_EQ(check_svg(read_text(aligned / "chinese-none-attention.svg")).count("cell"), 4 * 3 * 16);
  EXPECT_EQ(check_svg(read_text(aligned / "layers.svg")).text.find("*"), std::string::npos);
}

TEST(CliOrder, BadInputIsOneLineAndExitTwo) {
  const std::string none = golden("none");
  const std::vector<std::string> cases = {
      "--ids 1,2,3",                                    // no model
      none,                                             // no sentences
      none + " --ids 1,2,3 --compare",                  // odd number for pairs
      none + " --ids 1,2,3,4,5,6,7,8 -p permutations",  // 8! orders
      none + " --ids 1,2,3 --positions 0,5",            // past the end
      none + " --ids 1,2,3 --positions 1,1",            // the same position twice
      none + " --ids 1,2,3 --positions 0,1 -p reverse",
      none + " --ids 1,2,3 --unit word",  // ids have no words
      none + " --ids 1,2,3 -p sideways",  // unknown perturbation
      none + " 'a sentence'",             // the golden folder has no tokenizer
      none + " --ids 5",                  // one token: nothing to reorder
      none + " --ids 5,5,5",              // every order is the same
      none + " --ids 1,x",
      none + " --ids 1,999",  // outside the vocabulary of 50
      none + " --ids 1,2,3 --shuffles 0 -p shuffle",
      none + " --ids 1,2,3 -o " + shell_quote(scratch() / "no/such/folder/out.json"),
      "--models " + shell_quote(scratch() / "missing") + " " +
          shell_quote(tinyenc::testing::source_dir() / "tests/golden/encoders/none") + " --ids 1,2",
      "-m " + shell_quote(scratch() / "missing") + " --ids 1,2",
  };
  for (const std::string& arguments : cases) {
    const Result result = order(arguments);
    EXPECT_EQ(result.exit_code, 2) << arguments << "\n" << result.err;
    EXPECT_EQ(result.err.rfind("tinyenc: error: ", 0), 0u) << arguments << "\n" << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << arguments << "\n"
                                                                         << result.err;
    EXPECT_EQ(result.out, "") << arguments;
  }
}

// -o takes a file whose extension picks the format, as in run, bench and pe; --plot names one
// figure elsewhere, so order (several figures, a folder) refuses it with the flag it wants.
TEST(CliOrder, OutputAndPlotFlagsMeanWhatTheyMeanElsewhere) {
  const std::string none = golden("none") + " --ids 3,4,5";
  const std::filesystem::path csv = scratch() / "out.csv";
  const Result written = order(none + " -o " + shell_quote(csv));
  ASSERT_EQ(written.exit_code, 0) << written.err;
  std::ifstream in(csv);
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header.rfind("model,pe,text,perturbation,", 0), 0u) << header;

  for (const char* word : {"json", "csv"}) {
    const Result refused = order(none + " -o " + std::string(word));
    EXPECT_EQ(refused.exit_code, 2) << refused.err;
    EXPECT_NE(refused.err.find("-o takes a file name, not a format"), std::string::npos)
        << refused.err;
  }
  const Result plot = order(none + " --plot " + shell_quote(scratch() / "figure.svg"));
  EXPECT_EQ(plot.exit_code, 2) << plot.err;
  EXPECT_NE(plot.err.find("use --plot-dir DIR"), std::string::npos) << plot.err;
  EXPECT_FALSE(std::filesystem::exists(scratch() / "figure.svg"));
}

// `--` ends the options after --models (a list) as it does after -m: what follows is sentences.
TEST(CliOrder, DoubleDashEndsTheOptionsAfterEitherModelFlag) {
  const std::string model =
      shell_quote(tinyenc::testing::source_dir() / "models/pretrained/order-rope");
  for (const std::string& flag : {std::string("-m "), std::string("--models ")}) {
    const Result dash = order(flag + model + " -- --json 我打你");
    EXPECT_EQ(dash.exit_code, 2) << flag << dash.out;
    EXPECT_NE(dash.err.find("sentence 1 '--json'"), std::string::npos) << flag << dash.err;
    const Result sentence = order(flag + model + " -- 我打你");
    EXPECT_EQ(sentence.exit_code, 0) << flag << sentence.err;
    EXPECT_NE(sentence.out.find("我打你"), std::string::npos) << flag;
  }
}

}  // namespace
