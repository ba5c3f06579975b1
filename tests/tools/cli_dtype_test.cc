// --dtype on run, order and bench, `tinyenc info`'s dtype lines and `tinyenc convert`, end to
// end: what runs where, what a newcomer sees when asking for a dtype this CPU cannot run, and
// converted folders that load and run.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/dtype.h"
#include "engine/isa.h"
#include "tests/support/cli.h"
#include "tests/support/run_program.h"
#include "tests/support/temp_folder.h"
#include "tests/support/test_data.h"

namespace tinyenc {
namespace {

namespace fs = std::filesystem;
using testing::pretrained_model;
using testing::ProgramResult;
using testing::run_tinyenc;
using testing::shell_quote;

TEST(CliDtype, UnknownDtypeIsAUsageError) {
  for (const std::string& command :
       {"run -m " + shell_quote(pretrained_model("order-rope")) + " 我打你",
        "order -m " + shell_quote(pretrained_model("order-rope")) + " 我打你",
        std::string("bench --config tiny --seq 8 --repeat 1")}) {
    const ProgramResult result = run_tinyenc(command + " --dtype fp16");
    EXPECT_EQ(result.exit_code, 2) << command;
    EXPECT_EQ(result.err, "tinyenc: error: --dtype 'fp16': expected f32, bf16, int8 or auto\n")
        << command;
    EXPECT_EQ(result.out, "");
  }
  const ProgramResult two =
      run_tinyenc("run -m " + shell_quote(pretrained_model("order-rope")) + " --dtype f32,int8 x");
  EXPECT_EQ(two.exit_code, 2);
  EXPECT_NE(two.err.find("--dtype: one dtype here"), std::string::npos) << two.err;
}

TEST(CliDtype, Bf16RunsOrNamesTheMissingFeature) {
  const std::string missing = dtype_unsupported_reason(ComputeDtype::kBF16);
  const ProgramResult result = run_tinyenc("run -m " + shell_quote(pretrained_model("order-rope")) +
                                           " --dtype bf16 --json 我打你");
  if (missing.empty()) {
    EXPECT_EQ(result.exit_code, 0) << result.err;
  } else {
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(result.err, "tinyenc: error: --dtype bf16: " + missing + "\n");
    EXPECT_NE(result.err.find("avx512"), std::string::npos);
    EXPECT_EQ(result.out, "");
  }
}

TEST(CliDtype, VerboseSaysWhichDtypeAndWhy) {
  const ProgramResult plain =
      run_tinyenc("run -v -m " + shell_quote(pretrained_model("order-rope")) + " 我打你");
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_NE(plain.err.find("dtype f32 (default: float checkpoint)"), std::string::npos)
      << plain.err;
  const ProgramResult asked = run_tinyenc("run -v --dtype f32 -m " +
                                          shell_quote(pretrained_model("order-rope")) + " 我打你");
  EXPECT_NE(asked.err.find("dtype f32 (asked)"), std::string::npos) << asked.err;
  const AutoComputeDtype chosen = auto_compute_dtype();
  const ProgramResult automatic = run_tinyenc(
      "run -v --dtype auto -m " + shell_quote(pretrained_model("order-rope")) + " 我打你");
  EXPECT_NE(automatic.err.find("dtype " + std::string(compute_dtype_name(chosen.dtype)) +
                               " (auto: " + chosen.reason + ")"),
            std::string::npos)
      << automatic.err;
}

TEST(CliDtype, InfoTellsWhatRunsHere) {
  const ProgramResult text = run_tinyenc("info");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("CPU:         " + cpu_feature_list(cpu_features()) + "\n"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("CPU model:   " + cpu_model_name() + "\n"), std::string::npos)
      << text.out;
  const AutoComputeDtype chosen = auto_compute_dtype();
  EXPECT_NE(text.out.find("auto dtype:  " + std::string(compute_dtype_name(chosen.dtype)) + " (" +
                          chosen.reason + ")\n"),
            std::string::npos)
      << text.out;
  const std::string bf16 = dtype_unsupported_reason(ComputeDtype::kBF16);
  if (!bf16.empty()) {
    EXPECT_NE(text.out.find(bf16), std::string::npos) << text.out;
  }

  const ProgramResult json_result = run_tinyenc("info --json");
  ASSERT_EQ(json_result.exit_code, 0);
  const nlohmann::json document = nlohmann::json::parse(json_result.out);
  EXPECT_EQ(document["cpu_features"], cpu_feature_list(cpu_features()));
  EXPECT_EQ(document["dtypes"]["runs"]["f32"], true);
  if (bf16.empty()) {
    EXPECT_EQ(document["dtypes"]["runs"]["bf16"], true);
  } else {
    EXPECT_EQ(document["dtypes"]["runs"]["bf16"], bf16);
  }
  EXPECT_EQ(document["dtypes"]["auto"]["dtype"], compute_dtype_name(chosen.dtype));
}

TEST(CliDtype, ConvertWritesAFolderThatRuns) {
  const testing::TempFolder temp("tinyenc_cli_dtype");
  const fs::path out = temp.path() / "rope-int8";
  const ProgramResult convert =
      run_tinyenc("convert -m " + shell_quote(pretrained_model("order-rope")) +
                  " --dtype int8 -o " + shell_quote(out));
  ASSERT_EQ(convert.exit_code, 0) << convert.err;
  EXPECT_NE(convert.err.find("x smaller"), std::string::npos) << convert.err;
  const double ratio =
      static_cast<double>(fs::file_size(testing::source_dir() / "models" / "pretrained" /
                                        "order-rope" / "model.safetensors")) /
      static_cast<double>(fs::file_size(out / "model.safetensors"));
  EXPECT_GT(ratio, 3.3);  // 4 less the F32 biases and LayerNorms of a d_model-64 model

  const ProgramResult info = run_tinyenc("info --json -m " + shell_quote(out));
  ASSERT_EQ(info.exit_code, 0) << info.err;
  const nlohmann::json summary = nlohmann::json::parse(info.out)["model"];
  EXPECT_EQ(summary["dtype"]["stored"], "int8");
  const bool int8_runs = dtype_unsupported_reason(ComputeDtype::kInt8).empty();
  EXPECT_EQ(summary["dtype"]["compute"], int8_runs ? "int8" : "f32");

  // The converted folder, run in f32, labels as the original does on the article's sentences.
  const ProgramResult original =
      run_tinyenc("run --json --dtype f32 -m " + shell_quote(pretrained_model("order-rope")) +
                  " 我打你 你打我 猫追狗 狗追猫");
  const ProgramResult converted =
      run_tinyenc("run --json --dtype f32 -m " + shell_quote(out) + " 我打你 你打我 猫追狗 狗追猫");
  ASSERT_EQ(original.exit_code, 0) << original.err;
  ASSERT_EQ(converted.exit_code, 0) << converted.err;
  const nlohmann::json a = nlohmann::json::parse(original.out)["inputs"];
  const nlohmann::json b = nlohmann::json::parse(converted.out)["inputs"];
  ASSERT_EQ(a.size(), 4u);
  ASSERT_EQ(b.size(), 4u);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i]["label"], b[i]["label"]) << i;
    EXPECT_NE(a[i]["logits"], b[i]["logits"]) << i;  // the weights were rounded
  }

  // Refusals: an existing folder, the input itself, converting twice, f32, no --dtype.
  const ProgramResult again =
      run_tinyenc("convert -m " + shell_quote(pretrained_model("order-rope")) +
                  " --dtype int8 -o " + shell_quote(out));
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.err.find("exists and is not empty"), std::string::npos) << again.err;
  const ProgramResult twice = run_tinyenc("convert -m " + shell_quote(out) + " --dtype bf16 -o " +
                                          shell_quote(temp.path() / "x"));
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_NE(twice.err.find("already converted to int8"), std::string::npos) << twice.err;
  const ProgramResult f32 =
      run_tinyenc("convert -m " + shell_quote(pretrained_model("order-rope")) + " --dtype f32 -o " +
                  shell_quote(temp.path() / "y"));
  EXPECT_EQ(f32.exit_code, 2);
  EXPECT_EQ(f32.err, "tinyenc: error: --dtype 'f32': expected int8 or bf16\n");
  const ProgramResult missing =
      run_tinyenc("convert -m " + shell_quote(pretrained_model("order-rope")) + " -o " +
                  shell_quote(temp.path() / "z"));
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("--dtype is required"), std::string::npos) << missing.err;
  const ProgramResult absent = run_tinyenc("convert -m " + shell_quote(temp.path() / "nope") +
                                           " --dtype int8 -o " + shell_quote(temp.path() / "w"));
  EXPECT_EQ(absent.exit_code, 2);
  EXPECT_NE(absent.err.find("model folder not found"), std::string::npos) << absent.err;
  EXPECT_FALSE(fs::exists(temp.path() / "x"));
  EXPECT_FALSE(fs::exists(temp.path() / "y"));
}

TEST(CliDtype, BenchMeasuresEachDtypeAsItsOwnRow) {
  const std::string dtypes =
      dtype_unsupported_reason(ComputeDtype::kInt8).empty() ? "f32,int8" : "f32,f32";
  const ProgramResult result =
      run_tinyenc("bench --config tiny --seq 8 --repeat 1 --warmup 0 --jsonl --dtype " + dtypes);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(testing::count_lines(result.out), 2);
  const size_t newline = result.out.find('\n');
  const nlohmann::json first = nlohmann::json::parse(result.out.substr(0, newline));
  const nlohmann::json second = nlohmann::json::parse(result.out.substr(newline + 1));
  EXPECT_EQ(first["dtype"], "f32");
  EXPECT_EQ(second["dtype"], dtypes.substr(4));
  EXPECT_TRUE(first.contains("matmul"));

  const ProgramResult csv = run_tinyenc("bench --config tiny --seq 8 --repeat 1 --warmup 0 --csv");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("model,pe,dtype,matmul,batch,", 0), 0u) << csv.out;
  const ProgramResult md = run_tinyenc("bench --config tiny --seq 8 --repeat 1 --warmup 0");
  EXPECT_NE(md.out.find(cpu_feature_list(cpu_features())), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("| model | pe | dtype | matmul |"), std::string::npos) << md.out;
}

TEST(CliDtype, OrderRunsInTheDtypeAsked) {
  const ProgramResult result = run_tinyenc("order --json --dtype f32 -m " +
                                           shell_quote(pretrained_model("order-rope")) + " 我打你");
  EXPECT_EQ(result.exit_code, 0) << result.err;
}

}  // namespace
}  // namespace tinyenc
