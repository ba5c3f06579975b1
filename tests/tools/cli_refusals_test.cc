// What the program refuses rather than guesses at: empty option values, an option given twice,
// a JSON line with a key twice, a line over the length limit, a device that never ends as a file
// of sentences, and a converted folder whose scales overflow float32, the same in every dtype.
// And what it says: `info` names a Normalize module, `bench` prints no header before an error,
// `convert` calls a larger output larger.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/cli.h"
#include "tests/support/run_program.h"
#include "tests/support/temp_folder.h"
#include "tests/support/test_data.h"

namespace tinyenc {
namespace {

namespace fs = std::filesystem;
using testing::count_lines;
using testing::pretrained_model;
using testing::ProgramResult;
using testing::run_tinyenc;
using testing::shell_quote;

void expect_refused(const std::string& arguments, const std::string& mentions,
                    const std::string& input = "") {
  testing::expect_one_line_error(run_tinyenc(arguments, input), mentions, arguments);
}

std::string model() { return shell_quote(pretrained_model("order-rope")); }

TEST(CliRefusals, EmptyValuesAreRefused) {
  const testing::TempFolder temp("tinyenc_cli_refusals");
  const fs::path& dir = temp.path();
  const fs::path file = dir / "texts.txt";
  std::ofstream(file) << "我打你\n你打我\n";
  // `--shard ''` once ran the whole file, `--shift ''` the default experiment.
  expect_refused("run --shard '' -m " + model() + " -i " + shell_quote(file), "--shard");
  expect_refused("order --shift '' -m " + model() + " 我打你", "--shift");
  expect_refused("run --dtype '' -m " + model() + " 我打你", "--dtype");
  expect_refused("convert -m " + model() + " --dtype int8 -o ''", "-o");
}

TEST(CliRefusals, RepeatedOptionIsNamed) {
  for (const std::string option : {"--threads 1 --threads 2", "--dtype f32 --dtype int8"}) {
    const std::string name = option.substr(0, option.find(' '));
    expect_refused("run " + option + " -m " + model() + " 我打你",
                   name + " is given more than once");
  }
}

TEST(CliRefusals, ExtrapolationLineWithAKeyTwiceIsRefused) {
  const testing::TempFolder temp("tinyenc_cli_refusals");
  const fs::path& dir = temp.path();
  const fs::path file = dir / "long.jsonl";
  std::ofstream(file) << R"({"text": "我打你", "text": "你打我", "label": "我/I"})"
                      << "\n";
  expect_refused("order -m " + model() + " --extrapolate " + shell_quote(file), "'text'");
}

TEST(CliRefusals, EndlessDevicesAreNotFilesOfSentences) {
  expect_refused("order -m " + model() + " --extrapolate /dev/zero", "/dev/zero");
  expect_refused("order -m " + model() + " -i /dev/zero", "/dev/zero");
}

// The limit is the line's own length, however the reads fall: a 64 MiB + 1 line whose newline
// came in the same read once passed.
TEST(CliRefusals, LineOverTheLimitIsRefused) {
  const testing::TempFolder temp("tinyenc_cli_refusals");
  const fs::path& dir = temp.path();
  const fs::path file = dir / "line.txt";
  {
    std::ofstream out(file, std::ios::binary);
    out << std::string((size_t{64} << 20) + 1, 'a') << "\n";
  }
  for (const std::string& command :
       {"run --truncate -m " + model() + " -i " + shell_quote(file),
        "order -m " + model() + " -i " + shell_quote(file),
        "order -m " + model() + " --extrapolate " + shell_quote(file)}) {
    expect_refused(command, "longer than 64 MiB");
  }
}

// A 64 MiB line of 'a a a ...' once took more than 15 GB to be tokenized whole before it was
// refused; only a prefix is tokenized now, so the refusal fits in a few times the line's bytes.
TEST(CliRefusals, LongLineIsRefusedInBoundedMemory) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer reserves more address space than the limit this test sets";
#endif
  const testing::TempFolder temp("tinyenc_cli_refusals");
  const fs::path& dir = temp.path();
  const fs::path file = dir / "line.txt";
  {
    std::ofstream out(file, std::ios::binary);
    for (int i = 0; i < (16 << 20); ++i) out << "a ";
    out << "\n";
  }
  // 2 GiB of address space: the program's libraries and threads take some hundreds of MB.
  const ProgramResult result = testing::run_program(
      "sh", "-c " + shell_quote("ulimit -v 2097152; " + std::string(TINYENC_BINARY) +
                                " run --threads 1 -m " + model() + " -i " + shell_quote(file)));
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_NE(result.err.find("longer than the model's 64 tokens"), std::string::npos) << result.err;
}

TEST(CliRefusals, InfoSaysNormalizeL2Normalizes) {
  const testing::TempFolder temp("tinyenc_cli_refusals");
  const fs::path& dir = temp.path();
  fs::create_directories(dir / "1_Pooling");
  fs::create_directories(dir / "2_Normalize");
  const fs::path shipped = pretrained_model("order-rope");
  for (const char* name : {"model.safetensors", "tokenizer.model"}) {
    fs::copy_file(shipped / name, dir / name);
  }
  nlohmann::json config = testing::read_json(shipped / "config.json");
  config.erase("id2label");  // a base model: embeddings out, no classifier head
  std::ofstream(dir / "config.json") << config.dump();
  std::ofstream(dir / "modules.json") << R"([
    {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
    {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
    {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}
  ])";
  std::ofstream(dir / "1_Pooling" / "config.json")
      << R"({"word_embedding_dimension": 64, "pooling_mode_cls_token": false,
             "pooling_mode_mean_tokens": true, "pooling_mode_max_tokens": false})";
  const ProgramResult text = run_tinyenc("info -m " + shell_quote(dir));
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("L2-normalized"), std::string::npos) << text.out;
  const ProgramResult json = run_tinyenc("info --json -m " + shell_quote(dir));
  EXPECT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(nlohmann::json::parse(json.out)["model"]["normalize"], true) << json.out;
  const ProgramResult plain = run_tinyenc("info -m " + model());
  EXPECT_EQ(plain.out.find("L2-normalized"), std::string::npos) << plain.out;
}

// Sets every F32 value of the tensor `name` in `file` to `value`.
void set_tensor(const fs::path& file, const std::string& name, float value) {
  std::fstream stream(file, std::ios::in | std::ios::out | std::ios::binary);
  uint64_t header_size = 0;
  stream.read(reinterpret_cast<char*>(&header_size), 8);
  std::string header(header_size, '\0');
  stream.read(header.data(), static_cast<std::streamsize>(header_size));
  const nlohmann::json entries = nlohmann::json::parse(header);
  const std::vector<uint64_t> range = entries.at(name).at("data_offsets");
  ASSERT_EQ(entries.at(name).at("dtype"), "F32");
  stream.seekp(static_cast<std::streamoff>(8 + header_size + range[0]));
  for (uint64_t byte = range[0]; byte < range[1]; byte += 4) {
    stream.write(reinterpret_cast<const char*>(&value), 4);
  }
}

// A finite scale of 3e38 once gave a non-finite refusal in f32 and a label in int8: one folder
// gets one answer, a refusal naming the scale, in every dtype.
TEST(CliRefusals, OverflowingScalesAreRefusedInEveryDtype) {
  const testing::TempFolder temp("tinyenc_cli_refusals");
  const fs::path& dir = temp.path();
  const ProgramResult converted =
      run_tinyenc("convert -m " + model() + " --dtype int8 -o " + shell_quote(dir / "int8"));
  ASSERT_EQ(converted.exit_code, 0) << converted.err;
  set_tensor(dir / "int8" / "model.safetensors", "classifier.weight_scale", 3e38f);
  for (const std::string dtype : {"", " --dtype f32", " --dtype int8"}) {
    expect_refused("run --threads 1" + dtype + " -m " + shell_quote(dir / "int8") + " 我打你",
                   "classifier.weight_scale");
  }
}

// A run that fails before its first row prints no CSV header or Markdown preamble.
TEST(CliRefusals, BenchPrintsNothingBeforeARuntimeError) {
  const testing::TempFolder temp("tinyenc_cli_refusals");
  const fs::path& dir = temp.path();
  fs::copy(pretrained_model("order-rope"), dir / "overflow");
  set_tensor(dir / "overflow" / "model.safetensors", "classifier.weight", 3e38f);
  set_tensor(dir / "overflow" / "model.safetensors", "encoder.layer.1.output.dense.weight", 3e38f);
  for (const std::string format : {" --csv", ""}) {
    const ProgramResult result = run_tinyenc("bench --threads 1 --seq 8 --repeat 1 --warmup 0" +
                                             format + " -m " + shell_quote(dir / "overflow"));
    EXPECT_NE(result.exit_code, 0) << result.out;
    EXPECT_NE(result.err.find("NaN or Inf"), std::string::npos) << result.err;
    EXPECT_EQ(result.out, "") << format;
  }
}

}  // namespace
}  // namespace tinyenc
