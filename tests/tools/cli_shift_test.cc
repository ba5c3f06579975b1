// `tinyenc run --position-offset K` and `tinyenc order --shift K1,K2,...` on the shipped models:
// every position id + K. Relative kinds answer the same (ALiBi, T5 relative and none exactly,
// RoPE within float rounding), absolute kinds (sinusoidal, learned) do not, and a learned table
// shows "cannot" past its end instead of a number.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iterator>
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

std::filesystem::path pretrained(const std::string& name) {
  return tinyenc::testing::source_dir() / "models" / "pretrained" / name;
}

std::string model(const std::string& name) {
  return "-m " + tinyenc::testing::shell_quote(pretrained(name));
}

Result run(const std::string& arguments) {
  return tinyenc::testing::run_program(TINYENC_BINARY, arguments);
}

// The learned model's table: past its rows no offset can be measured.
int64_t learned_rows() {
  const json config = tinyenc::testing::read_json(pretrained("order-learned") / "config.json");
  return config["position_encoding"]["max_positions"].get<int64_t>();
}

std::vector<double> logits(const Result& result) {
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return json::parse(result.out)["inputs"][0]["logits"].get<std::vector<double>>();
}

double max_abs_difference(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double worst = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    worst = std::max(worst, std::abs(a[i] - b[i]));
  }
  return worst;
}

TEST(CliShift, RunPositionOffsetKeepsRelativeKindsAndMovesAbsoluteOnes) {
  const std::string sentence = " --json 小明把小红打了";
  for (const std::string name : {"order-alibi", "order-relative", "order-none"}) {
    const Result base = run("run " + model(name) + sentence);
    const Result shifted = run("run " + model(name) + " --position-offset 7" + sentence);
    // Bit for bit the same numbers: the same JSON.
    EXPECT_EQ(logits(base), logits(shifted)) << name;
  }
  {
    const Result base = run("run " + model("order-rope") + sentence);
    const Result shifted = run("run " + model("order-rope") + " --position-offset 7" + sentence);
    EXPECT_LE(max_abs_difference(logits(base), logits(shifted)), 1e-4);
  }
  for (const std::string name : {"order-sinusoidal", "order-learned"}) {
    const Result base = run("run " + model(name) + sentence);
    const Result shifted = run("run " + model(name) + " --position-offset 7" + sentence);
    EXPECT_GT(max_abs_difference(logits(base), logits(shifted)), 1e-3) << name;
  }
}

TEST(CliShift, RunRefusesOffsetsTheModelCannotNumber) {
  const int64_t rows = learned_rows();
  const Result past = run("run " + model("order-learned") + " --position-offset " +
                          std::to_string(rows) + " 我打你");
  EXPECT_EQ(past.exit_code, 2);
  EXPECT_EQ(tinyenc::testing::count_lines(past.err), 1) << past.err;
  EXPECT_NE(past.err.find("position offset " + std::to_string(rows)), std::string::npos)
      << past.err;
  EXPECT_NE(past.err.find("max_position_embeddings"), std::string::npos) << past.err;
  for (const std::string bad : {"-1", "65537", "x"}) {
    const Result result = run("run " + model("order-rope") + " --position-offset " + bad + " 我");
    EXPECT_EQ(result.exit_code, 2) << bad;
    EXPECT_EQ(tinyenc::testing::count_lines(result.err), 1) << result.err;
  }
}

std::string all_models() {
  std::string models;
  for (const std::string name : {"order-none", "order-sinusoidal", "order-learned", "order-rope",
                                 "order-alibi", "order-relative"}) {
    models += " " + model(name);
  }
  return models;
}

TEST(CliShift, OrderShiftReportsDistanceAgainstK) {
  const int64_t rows = learned_rows();
  const std::string offsets = "1,4," + std::to_string(rows);
  const tinyenc::testing::TempFolder temp("tinyenc_cli_shift_test");
  const std::filesystem::path plots = temp / "plots";
  const std::string common =
      "order" + all_models() + " --shift " + offsets + " 我打你 小明把小红打了";
  const Result result = run(common + " --json --plot-dir " + tinyenc::testing::shell_quote(plots));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const json document = json::parse(result.out);
  EXPECT_EQ(document["experiment"], "shift");
  // 6 models x 2 sentences x 3 offsets.
  ASSERT_EQ(document["results"].size(), 36u);
  ASSERT_EQ(document["summary"].size(), 18u);
  for (const json& summary : document["summary"]) {
    const std::string pe = summary["pe"];
    const int64_t offset = summary["offset"];
    const std::string what = pe + " K=" + std::to_string(offset);
    if (pe == "learned" && offset == rows) {
      EXPECT_TRUE(summary["mean_cosine_distance"].is_null()) << what;
      EXPECT_EQ(summary["cannot"], 2) << what;
      EXPECT_NE(summary["reason"].get<std::string>().find("max_position_embeddings"),
                std::string::npos)
          << what;
      continue;
    }
    const double distance = summary["mean_cosine_distance"];
    const double logit = summary["max_abs_logit_delta"];
    if (pe == "none" || pe == "alibi" || pe == "relative") {
      EXPECT_EQ(distance, 0.0) << what;
      EXPECT_EQ(logit, 0.0) << what;
    } else if (pe == "rope") {
      EXPECT_LT(distance, 1e-5) << what;
      EXPECT_LT(logit, 1e-4) << what;
    } else {
      EXPECT_GT(distance, 1e-6) << what;
      EXPECT_GT(logit, 1e-3) << what;
    }
  }
  for (const json& item : document["results"]) {
    if (item["pe"] == "learned" && item["offset"] == rows) {
      EXPECT_TRUE(item["cosine_distance"].is_null());
      EXPECT_TRUE(item["label_flipped"].is_null());
      EXPECT_TRUE(item["reason"].is_string());
    } else {
      EXPECT_TRUE(item["reason"].is_null());
      EXPECT_TRUE(item["cosine_distance"].is_number());
    }
  }

  const tinyenc::plot::SvgCheck svg =
      tinyenc::plot::check_svg(tinyenc::testing::read_text(plots / "shift.svg"));
  EXPECT_TRUE(svg.ok()) << svg.error;
  EXPECT_EQ(svg.count("series"), 6);
  EXPECT_EQ(svg.count("point"), 6 * 3 - 1);  // the learned model has no point at K = rows
  EXPECT_EQ(svg.count("direct-labels"), 1);
  EXPECT_EQ(svg.count("legend-line"), 6);  // beside each label, a stretch of its line
  EXPECT_EQ(tinyenc::plot::overlapping_text(svg), std::vector<std::string>{});
  EXPECT_NE(svg.text.find("0, exactly"), std::string::npos);
  EXPECT_NE(svg.text.find("cannot at K \u2265 " + std::to_string(rows)), std::string::npos);

  // The table and CSV of two models: the learned table's "cannot" and a relative kind's 0.
  const std::string two = "order " + model("order-learned") + " " + model("order-alibi") +
                          " --shift " + offsets + " 我打你 小明把小红打了";
  const Result table = run(two);
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("K=" + std::to_string(rows)), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("cannot"), std::string::npos) << table.out;
  // The first table's alibi row: 0 at every K.
  const size_t row = table.out.find("  order-alibi ");
  ASSERT_NE(row, std::string::npos) << table.out;
  std::istringstream cells(table.out.substr(row, table.out.find('\n', row) - row));
  std::vector<std::string> words{std::istream_iterator<std::string>(cells), {}};
  EXPECT_EQ(words, (std::vector<std::string>{"order-alibi", "alibi", "0", "0", "0"}));
  const Result csv = run(two + " --csv");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(tinyenc::testing::count_lines(csv.out), 1 + 2 * 2 * 3);
}

TEST(CliShift, OrderShiftRefusesBadOffsetsAndOtherExperiments) {
  for (const std::string bad :
       {"--shift 0", "--shift 1,1", "--shift -3", "--shift 70000", "--shift 1 --compare",
        "--shift 1 -p reverse", "--shift 1 --position-offset 2", "--position-offset -1"}) {
    const Result result = run("order " + model("order-rope") + " " + bad + " 我打你 你打我");
    EXPECT_EQ(result.exit_code, 2) << bad;
    EXPECT_EQ(tinyenc::testing::count_lines(result.err), 1) << bad << ": " << result.err;
  }
}

TEST(CliShift, OrderPositionOffsetShiftsTheOrdinaryExperiment) {
  // ALiBi does not see the shift: the same JSON at any offset.
  const std::string alibi = "order " + model("order-alibi") + " --json 我打你";
  const Result base = run(alibi);
  const Result shifted = run(alibi + " --position-offset 9");
  ASSERT_EQ(base.exit_code, 0) << base.err;
  EXPECT_EQ(base.out, shifted.out);
  // The sinusoidal model does.
  const std::string sinusoidal = "order " + model("order-sinusoidal") + " --json 我打你";
  EXPECT_NE(run(sinusoidal).out, run(sinusoidal + " --position-offset 9").out);
}

}  // namespace
