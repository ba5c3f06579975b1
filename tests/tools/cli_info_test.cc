// `tinyenc info -m` end to end: what it says about a model folder is checked against the folder
// itself (config.json, and the safetensors header read here, independently of the loaders), on
// the shipped models and on a third-party BERT; bad folders give one line and exit code 2.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/run_program.h"
#include "tests/support/temp_folder.h"
#include "tests/support/test_data.h"

namespace tinyenc {
namespace {

using nlohmann::json;
using testing::count_lines;
using testing::ProgramResult;
using testing::shell_quote;

std::filesystem::path shipped(const std::string& name) {
  return testing::source_dir() / "models" / "pretrained" / name;
}

ProgramResult run(const std::string& arguments) {
  return testing::run_program(TINYENC_BINARY, arguments);
}

json info_json(const std::filesystem::path& dir) {
  const ProgramResult result = run("info --json -m " + shell_quote(dir));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.err, "");
  return json::parse(result.out)["model"];
}

// What model.safetensors holds, from its header: the element count summed over every tensor,
// and the bytes of the data area.
struct HeaderCount {
  int64_t elements = 0;
  int64_t data_bytes = 0;
  int64_t tensors = 0;
};

HeaderCount count_header(const std::filesystem::path& file) {
  const std::vector<char> bytes = testing::read_bytes(file);
  uint64_t header_length = 0;
  std::memcpy(&header_length, bytes.data(), 8);  // little-endian, as this machine
  const json header = json::parse(bytes.begin() + 8, bytes.begin() + 8 + header_length);
  HeaderCount count;
  for (const auto& [name, tensor] : header.items()) {
    if (name == "__metadata__") continue;
    int64_t elements = 1;
    for (const json& extent : tensor["shape"]) elements *= extent.get<int64_t>();
    count.elements += elements;
    ++count.tensors;
  }
  count.data_bytes = static_cast<int64_t>(bytes.size() - 8 - header_length);
  return count;
}

std::string with_commas(int64_t value) {
  std::string digits = std::to_string(value);
  for (size_t i = digits.size(); i > 3; i -= 3) digits.insert(i - 3, 1, ',');
  return digits;
}

TEST(CliInfoModel, ShippedRopeModelMatchesItsFiles) {
  const std::filesystem::path dir = shipped("order-rope");
  const json config = testing::read_json(dir / "config.json");
  const json model = info_json(dir);
  EXPECT_EQ(model["family"], "tinyenc");
  EXPECT_EQ(model["layers"], config["num_hidden_layers"]);
  EXPECT_EQ(model["heads"], config["num_attention_heads"]);
  EXPECT_EQ(model["d_model"], config["hidden_size"]);
  EXPECT_EQ(model["ffn_dim"], config["intermediate_size"]);
  EXPECT_EQ(model["vocab_size"], config["vocab_size"]);
  EXPECT_EQ(model["max_positions"], config["max_position_embeddings"]);
  EXPECT_EQ(model["num_labels"], config["id2label"].size());
  EXPECT_EQ(model["labels"][1], "你/you");
  EXPECT_EQ(model["activation"], "gelu");
  EXPECT_EQ(model["norm"], "post-LN");
  EXPECT_EQ(model["pooling"], "mean");

  const json& pe = model["position_encoding"];
  EXPECT_EQ(pe["kind"], "rope");
  EXPECT_EQ(pe["pairing"], "half");
  EXPECT_EQ(pe["theta"], 10000.0);
  const int64_t head_dim =
      config["hidden_size"].get<int64_t>() / config["num_attention_heads"].get<int64_t>();
  EXPECT_EQ(pe["rotary_dim"], head_dim);  // no rotary_dim in config.json: the whole head

  EXPECT_EQ(model["tokenizer"]["kind"], "sentencepiece");
  EXPECT_EQ(model["tokenizer"]["vocab_size"], config["vocab_size"]);

  // Every tensor in the file is a weight the model uses, so the parameters are the header's
  // element count; all F32, 4 bytes each.
  const HeaderCount header = count_header(dir / "model.safetensors");
  EXPECT_EQ(model["parameters"], header.elements);
  EXPECT_EQ(model["weights"]["dtypes"]["F32"]["bytes"], header.data_bytes);
  EXPECT_EQ(model["weights"]["dtypes"]["F32"]["tensors"], header.tensors);
  EXPECT_EQ(model["weights"]["float32_bytes"], 4 * header.elements);
  EXPECT_EQ(model["weights"]["unused_tensors"].size(), 0u);

  // The table says the same to people.
  const ProgramResult table = run("info -m " + shell_quote(dir));
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("PE kernels:"), std::string::npos);  // what info printed before
  EXPECT_NE(table.out.find("parameters:  " + with_commas(header.elements) + "\n"),
            std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("position:    rope (pairing half, theta 10000, rotary_dim " +
                           std::to_string(head_dim) + " of head_dim " + std::to_string(head_dim)),
            std::string::npos)
      << table.out;
  // The shipped tokenizer puts each sentence between <s> and </s>, as `tokenize` shows: three
  // characters, five ids.
  EXPECT_EQ(model["tokenizer"]["template"], "<s> $A </s>");
  const ProgramResult tokens = run("tokenize --json -m " + shell_quote(dir) + " 我打你");
  ASSERT_EQ(tokens.exit_code, 0) << tokens.err;
  EXPECT_EQ(json::parse(tokens.out)["inputs"][0]["ids"].size(), 5u);
  EXPECT_NE(table.out.find("; template: <s> $A </s>\n"), std::string::npos) << table.out;
}

// The bytes the weights take in memory, from the header's shapes: the Linear weights (2-D
// "<name>.weight" tensors other than embedding tables) in the compute dtype, int8 with one f32
// scale and one s32 row sum per output row; everything else (embeddings, LayerNorms, biases) f32.
int64_t expected_memory_bytes(const std::filesystem::path& file, const std::string& dtype) {
  const std::vector<char> bytes = testing::read_bytes(file);
  uint64_t header_length = 0;
  std::memcpy(&header_length, bytes.data(), 8);
  const json header = json::parse(bytes.begin() + 8, bytes.begin() + 8 + header_length);
  int64_t total = 0;
  for (const auto& [name, tensor] : header.items()) {
    if (name == "__metadata__") continue;
    const json& shape = tensor["shape"];
    int64_t elements = 1;
    for (const json& extent : shape) elements *= extent.get<int64_t>();
    const bool linear = shape.size() == 2 && name.ends_with(".weight") &&
                        name.find("embeddings") == std::string::npos;
    if (!linear || dtype == "f32") {
      total += 4 * elements;
    } else if (dtype == "int8") {
      total += elements + shape[0].get<int64_t>() * (4 + 4);
    } else {
      total += 2 * elements;
    }
  }
  return total;
}

TEST(CliInfoModel, MemoryBytesFollowTheComputeDtype) {
  const std::filesystem::path dir = shipped("order-rope");
  const std::filesystem::path file = dir / "model.safetensors";
  // order-rope: d_model 64, 2 layers, FFN 128, 427 tokens, 42 labels, RoPE (no position table):
  // Linear weights 2 x (4 x 64 x 64 + 2 x 128 x 64) + 42 x 64 = 68,224 elements in
  // 2 x (5 x 64 + 128) + 42 = 938 output rows; 28,906 other parameters (27,328 of them the
  // word embeddings).
  const int64_t f32 = 4 * (68224 + 28906);
  const int64_t int8 = 4 * 28906 + 68224 + 938 * 8;
  ASSERT_EQ(expected_memory_bytes(file, "f32"), f32);
  ASSERT_EQ(expected_memory_bytes(file, "int8"), int8);
  for (const auto& [dtype, bytes] : {std::pair<std::string, int64_t>{"f32", f32}, {"int8", int8}}) {
    SCOPED_TRACE(dtype);
    const ProgramResult result = run("info --json --dtype " + dtype + " -m " + shell_quote(dir));
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const json weights = json::parse(result.out)["model"]["weights"];
    EXPECT_EQ(weights["memory_bytes"], bytes);
    EXPECT_EQ(weights["memory_dtype"], dtype);
    EXPECT_EQ(weights["float32_bytes"], f32);  // kept as it was, whatever the dtype
  }
  const ProgramResult table = run("info --dtype int8 -m " + shell_quote(dir));
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("F32 " + with_commas(f32) + " bytes in 37 tensors on disk; " +
                           with_commas(int8) + " bytes in memory as int8 (Linear weights s8"),
            std::string::npos)
      << table.out;

  // A folder written by `tinyenc convert --dtype int8` runs in int8 by default and holds the same.
  const testing::TempFolder temp("tinyenc_cli_info");
  const std::filesystem::path scratch = temp / "int8";
  const ProgramResult convert =
      run("convert --dtype int8 -m " + shell_quote(dir) + " -o " + shell_quote(scratch));
  ASSERT_EQ(convert.exit_code, 0) << convert.err;
  const json converted = info_json(scratch)["weights"];
  EXPECT_EQ(converted["memory_bytes"], int8);
  EXPECT_EQ(converted["memory_dtype"], "int8");

  // --dtype is checked like run's: an unknown name is a usage error.
  EXPECT_EQ(run("info --dtype fp16 -m " + shell_quote(dir)).exit_code, 2);
}

TEST(CliInfoModel, EveryShippedPositionEncodingShowsItsParameters) {
  for (const char* name : {"order-none", "order-sinusoidal", "order-learned", "order-rope",
                           "order-alibi", "order-relative"}) {
    SCOPED_TRACE(name);
    const std::filesystem::path dir = shipped(name);
    const json config = testing::read_json(dir / "config.json");
    const json model = info_json(dir);
    const json& pe = model["position_encoding"];
    const json& configured = config["position_encoding"];
    EXPECT_EQ(pe["kind"], configured["kind"]);
    for (const auto& [key, value] : configured.items()) EXPECT_EQ(pe[key], value) << key;
    EXPECT_EQ(model["parameters"], count_header(dir / "model.safetensors").elements);
    if (pe["kind"] == "alibi") {
      // Press et al.: for 4 heads the slopes are 2^(-8/4 * h), h = 1..4.
      EXPECT_EQ(pe["slopes"], json({0.25, 0.0625, 0.015625, 0.00390625}));
    }
    if (pe["kind"] == "learned") {
      EXPECT_TRUE(pe["padding_idx"].is_null());
    }
  }
}

TEST(CliInfoModel, ThirdPartyBert) {
  TINYENC_REQUIRE_TESTDATA(testdata);
  const std::filesystem::path dir = testdata / "models" / "tiny_bert";
  const json config = testing::read_json(dir / "config.json");
  const json model = info_json(dir);
  EXPECT_EQ(model["family"], "bert");
  EXPECT_EQ(model["architecture"], "BertModel");
  EXPECT_EQ(model["position_encoding"]["kind"], "learned");
  EXPECT_EQ(model["position_encoding"]["max_positions"], config["max_position_embeddings"]);
  EXPECT_EQ(model["type_vocab_size"], config["type_vocab_size"]);
  EXPECT_EQ(model["tokenizer"]["kind"], "wordpiece");
  EXPECT_EQ(model["tokenizer"]["template"], "[CLS] $A [SEP]");
  EXPECT_EQ(model["tokenizer"]["pair_template"], "[CLS] $A [SEP] $B [SEP]");

  // BERT by hand: word, position and token-type tables and the embedding LayerNorm, then per
  // layer Q, K, V and the output projection (d x d + d each), two LayerNorms and the FFN.
  const int64_t d = config["hidden_size"], f = config["intermediate_size"];
  const int64_t vocab = config["vocab_size"], positions = config["max_position_embeddings"];
  const int64_t types = config["type_vocab_size"], layers = config["num_hidden_layers"];
  const int64_t by_hand = (vocab + positions + types) * d + 2 * d +
                          layers * (4 * (d * d + d) + 2 * 2 * d + (f * d + f) + (d * f + d));
  EXPECT_EQ(model["parameters"], by_hand);
  EXPECT_EQ(model["parameters"], count_header(dir / "model.safetensors").elements);
}

// Bad input: exit code 2 and exactly one line on stderr naming the file.
void expect_bad_folder(const std::filesystem::path& dir, const std::string& mentions) {
  const ProgramResult result = run("info -m " + shell_quote(dir));
  EXPECT_EQ(result.exit_code, 2) << dir;
  EXPECT_EQ(result.out, "") << dir;
  EXPECT_EQ(count_lines(result.err), 1) << result.err;
  EXPECT_EQ(result.err.rfind("tinyenc: error: ", 0), 0u) << result.err;
  EXPECT_NE(result.err.find(mentions), std::string::npos) << result.err;
}

TEST(CliInfoModel, BadFoldersAreOneLineErrors) {
  const testing::TempFolder temp("tinyenc_cli_info");
  const std::filesystem::path& scratch = temp.path();
  std::filesystem::create_directories(scratch / "broken");
  expect_bad_folder(scratch / "missing",
                    (scratch / "missing").string() + ": model folder not found");

  std::ofstream(scratch / "broken" / "config.json") << "{\"model_type\": \"bert\", ";
  expect_bad_folder(scratch / "broken", (scratch / "broken" / "config.json").string());

  // A good config.json over a truncated model.safetensors.
  const std::filesystem::path rope = shipped("order-rope");
  std::filesystem::create_directories(scratch / "truncated");
  std::filesystem::copy_file(rope / "config.json", scratch / "truncated" / "config.json");
  const std::vector<char> weights = testing::read_bytes(rope / "model.safetensors");
  std::ofstream(scratch / "truncated" / "model.safetensors", std::ios::binary)
      .write(weights.data(), static_cast<std::streamsize>(weights.size() / 2));
  expect_bad_folder(scratch / "truncated", "model.safetensors");
}

TEST(CliInfoModel, UnsupportedThirdPartyFamilyIsAnError) {
  TINYENC_REQUIRE_TESTDATA(testdata);
  expect_bad_folder(testdata / "models" / "tiny_modernbert", "config.json");
}

TEST(CliRunVerbose, DescribesTheModelInOneLineOnStderr) {
  const std::filesystem::path dir = shipped("order-rope");
  const ProgramResult quiet = run("run --threads 1 -m " + shell_quote(dir) + " 我打你");
  const ProgramResult verbose = run("run --threads 1 --verbose -m " + shell_quote(dir) + " 我打你");
  ASSERT_EQ(verbose.exit_code, 0) << verbose.err;
  EXPECT_EQ(verbose.out, quiet.out);
  EXPECT_EQ(count_lines(verbose.err), 1) << verbose.err;
  EXPECT_EQ(verbose.err.rfind("tinyenc: " + dir.string() + ": tinyenc, 2 layers", 0), 0u)
      << verbose.err;
  const HeaderCount header = count_header(dir / "model.safetensors");
  EXPECT_NE(verbose.err.find(with_commas(header.elements) + " parameters"), std::string::npos)
      << verbose.err;
}

}  // namespace
}  // namespace tinyenc
