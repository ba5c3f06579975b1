// The `tinyenc` program end to end: `pe` output formats and the exit codes for bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/float_tolerance.h"
#include "tests/support/run_program.h"

namespace {

using Result = tinyenc::testing::ProgramResult;
using tinyenc::testing::count_lines;

// Runs the program with `arguments` (already shell-quoted), capturing stdout and stderr.
Result run(const std::string& arguments, const std::string& environment = "") {
  return tinyenc::testing::run_program(TINYENC_BINARY, arguments, "", environment);
}

TEST(CliPe, JsonPrintsTheSeedTable) {
  const Result result = run("pe --kind sinusoidal --d-model 4 --rows 3 --json");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.err, "");
  const nlohmann::json doc = nlohmann::json::parse(result.out);
  EXPECT_EQ(doc["kind"], "sinusoidal");
  EXPECT_EQ(doc["d_model"], 4);
  EXPECT_EQ(doc["positions"], 3);
  const double expected[3][4] = {
      {0.0, 1.0, 0.0, 1.0}, {0.841, 0.540, 0.010, 1.000}, {0.909, -0.416, 0.020, 1.000}};
  ASSERT_EQ(doc["values"].size(), 3u);
  for (int pos = 0; pos < 3; ++pos) {
    ASSERT_EQ(doc["values"][pos].size(), 4u);
    for (int i = 0; i < 4; ++i) {
      const double value = doc["values"][pos][i];
      EXPECT_NEAR(value, expected[pos][i], 5e-4);  // three decimals: half a unit of the third
      // Printed as the shortest decimal of the float32: exact to float precision. The float
      // table is within 4 ulps at 1 of the formula (tests/engine/sinusoidal_test.cc).
      const double angle = pos / std::pow(10000.0, 2.0 * (i / 2) / 4.0);
      EXPECT_NEAR(value, i % 2 == 0 ? std::sin(angle) : std::cos(angle),
                  4 * tinyenc::testing::float_ulp(1.0));
    }
  }
}

TEST(CliPe, CsvHasHeaderAndOneRowPerPosition) {
  const Result result = run("pe --kind sinusoidal --d-model 6 --rows 5 --csv");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(count_lines(result.out), 6);
  EXPECT_EQ(result.out.substr(0, result.out.find('\n')), "position,dim0,dim1,dim2,dim3,dim4,dim5");
  EXPECT_EQ(result.out.substr(result.out.find('\n') + 1, 8), "0,0,1,0,");
}

TEST(CliPe, ConcatLayoutAndNoneKind) {
  Result result = run("pe --kind sinusoidal --layout concat --d-model 4 --rows 2 --json");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  nlohmann::json doc = nlohmann::json::parse(result.out);
  // As in JsonPrintsTheSeedTable: within 4 ulps at 1 of the formula.
  const double tolerance = 4 * tinyenc::testing::float_ulp(1.0);
  EXPECT_NEAR(doc["values"][1][0].get<double>(), std::sin(1.0), tolerance);
  EXPECT_NEAR(doc["values"][1][1].get<double>(), std::sin(0.01), tolerance);
  EXPECT_NEAR(doc["values"][1][2].get<double>(), std::cos(1.0), tolerance);

  result = run("pe --kind none --d-model 4 --rows 2 --json");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  doc = nlohmann::json::parse(result.out);
  for (const auto& row : doc["values"]) {
    for (const auto& value : row) EXPECT_EQ(value.get<double>(), 0.0);
  }
}

TEST(CliPe, TextTableShowsFourDecimals) {
  const Result result = run("pe --d-model 4 --rows 3");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("0.8415"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("-0.4161"), std::string::npos) << result.out;
}

// Bad input: exit code 2 and exactly one line on stderr that says what was wrong.
void expect_usage_error(const std::string& arguments, const std::string& mentions) {
  const Result result = run(arguments);
  EXPECT_EQ(result.exit_code, 2) << arguments;
  EXPECT_EQ(result.out, "") << arguments;
  EXPECT_EQ(count_lines(result.err), 1) << arguments << ": " << result.err;
  EXPECT_EQ(result.err.rfind("tinyenc: error: ", 0), 0u) << result.err;
  EXPECT_NE(result.err.find(mentions), std::string::npos) << result.err;
}

TEST(CliPe, BadInputExitsWithTwoAndOneLine) {
  expect_usage_error("pe --kind sinus --d-model 4 --rows 3", "unknown position encoding");
  expect_usage_error("pe --d-model 3 --rows 3", "--d-model");
  expect_usage_error("pe --d-model 0 --rows 3", "--d-model");
  expect_usage_error("pe --d-model -4 --rows 3", "--d-model");
  expect_usage_error("pe --d-model 4 --rows 0", "--rows");
  expect_usage_error("pe --d-model 4 --rows -1", "--rows");
  expect_usage_error("pe --d-model four --rows 3", "--d-model");
  expect_usage_error("pe --rows 3", "--d-model");
  expect_usage_error("pe --d-model 4 --rows 3 --layout diagonal", "--layout");
  expect_usage_error("pe --d-model 4 --rows 3 --json --csv", "--csv");
  expect_usage_error("pe --kind learned --d-model 4 --rows 3", "learned");
  expect_usage_error("pe --d-model 100000 --rows 100000", "too large");
  expect_usage_error("frobnicate", "frobnicate");
}

TEST(CliInfo, ReportsIsaAndOneDnn) {
  const Result result = run("info");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("PE kernels:"), std::string::npos);
  EXPECT_NE(result.out.find("oneDNN:      2."), std::string::npos) << result.out;

  const Result forced = run("info", "TINYENC_ISA=scalar");
  ASSERT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_NE(forced.out.find("PE kernels:  scalar"), std::string::npos) << forced.out;
}

TEST(CliInfo, UnknownIsaIsAClearError) {
  const Result result = run("info", "TINYENC_ISA=sse9");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("TINYENC_ISA"), std::string::npos) << result.err;
  EXPECT_EQ(count_lines(result.err), 1);
}

}  // namespace
