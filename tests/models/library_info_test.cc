// The public API beside the Model: <tinyenc/info.h> against the shipped models' own config.json,
// <tinyenc/bench.h>'s random presets and timed passes, <tinyenc/convert.h> and
// <tinyenc/options.h>.
#include <gtest/gtest.h>

#include <tinyenc/bench.h>
#include <tinyenc/convert.h>
#include <tinyenc/info.h>
#include <tinyenc/options.h>
#include <tinyenc/tinyenc.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

#include "tests/support/temp_folder.h"
#include "tests/support/test_data.h"

namespace {

std::string shipped(const std::string& name) {
  return (tinyenc::testing::source_dir() / "models/pretrained" / name).string();
}

tinyenc::Error::Kind kind_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const tinyenc::Error& e) {
    return e.kind();
  }
  ADD_FAILURE() << "no error";
  return tinyenc::Error::Kind::kInternal;
}

TEST(LibraryInfo, ShippedModelsMatchTheirConfig) {
  for (const char* name : {"order-none", "order-sinusoidal", "order-learned", "order-rope",
                           "order-alibi", "order-relative"}) {
    SCOPED_TRACE(name);
    const nlohmann::json config =
        tinyenc::testing::read_json(std::filesystem::path(shipped(name)) / "config.json");
    const tinyenc::ModelInfo info = tinyenc::model_info(shipped(name));
    EXPECT_EQ(info.model, shipped(name));
    EXPECT_EQ(info.family, "tinyenc");
    EXPECT_EQ(info.layers, config["num_hidden_layers"].get<int64_t>());
    EXPECT_EQ(info.heads, config["num_attention_heads"].get<int64_t>());
    EXPECT_EQ(info.d_model, config["hidden_size"].get<int64_t>());
    EXPECT_EQ(info.head_dim, info.d_model / info.heads);
    EXPECT_EQ(info.ffn_dim, config["intermediate_size"].get<int64_t>());
    EXPECT_EQ(info.vocab_size, config["vocab_size"].get<int64_t>());
    EXPECT_EQ(info.num_labels, static_cast<int64_t>(config["id2label"].size()));
    ASSERT_EQ(info.labels.size(), config["id2label"].size());
    EXPECT_EQ(info.labels[1], config["id2label"]["1"].get<std::string>());
    EXPECT_EQ(info.max_tokens, config["max_position_embeddings"].get<int64_t>());
    EXPECT_EQ(info.position_encoding.kind, std::string(name).substr(6));
    EXPECT_EQ(info.position_encoding.description.rfind(info.position_encoding.kind + " (", 0), 0u)
        << info.position_encoding.description;
    ASSERT_TRUE(info.tokenizer.has_value());
    EXPECT_EQ(info.tokenizer->kind, "sentencepiece");
    EXPECT_EQ(info.tokenizer->vocab_size, config["vocab_size"].get<int64_t>());
    EXPECT_EQ(info.tokenizer->special_template, "<s> $A </s>");
    ASSERT_TRUE(info.weights.has_value());
    EXPECT_EQ(info.weights->file, shipped(name) + "/model.safetensors");
    EXPECT_EQ(
        info.weights->file_bytes,
        std::filesystem::file_size(std::filesystem::path(shipped(name)) / "model.safetensors"));
    // Every tensor of a shipped model is a weight it uses, all float32.
    EXPECT_EQ(info.weights->elements, static_cast<uint64_t>(info.parameters));
    EXPECT_EQ(info.weights->float32_bytes, 4 * info.parameters);
    EXPECT_EQ(info.weights->memory_bytes, 4 * info.parameters);
    ASSERT_EQ(info.weights->stored.size(), 1u);
    EXPECT_EQ(info.weights->stored[0].dtype, "F32");
    EXPECT_EQ(info.weights->stored[0].tensors, info.weights->tensors);
    EXPECT_EQ(info.dtype, "f32");
    EXPECT_EQ(info.stored_dtype, "");
  }
}

TEST(LibraryInfo, RopeParametersAreTheConfigs) {
  const tinyenc::ModelInfo info = tinyenc::model_info(shipped("order-rope"));
  const auto& parameters = info.position_encoding.parameters;
  const auto value = [&](const std::string& name) {
    for (const auto& [key, parameter] : parameters) {
      if (key == name) return parameter;
    }
    ADD_FAILURE() << "no parameter " << name;
    return tinyenc::InfoValue();
  };
  EXPECT_EQ(std::get<std::string>(value("pairing")), "half");
  EXPECT_EQ(std::get<double>(value("theta")), 10000.0);
  EXPECT_EQ(std::get<int64_t>(value("rotary_dim")), info.head_dim);
  EXPECT_EQ(info.position_encoding.description,
            "rope (pairing half, theta 10000, rotary_dim " + std::to_string(info.head_dim) +
                " of head_dim " + std::to_string(info.head_dim) + ")");
}

TEST(LibraryInfo, LoadedModelSaysTheSame) {
  const tinyenc::Model model = tinyenc::Model::load(shipped("order-alibi"));
  const tinyenc::ModelInfo loaded = tinyenc::model_info(model);
  const tinyenc::ModelInfo read = tinyenc::model_info(shipped("order-alibi"));
  EXPECT_EQ(loaded.d_model, model.dimension());
  EXPECT_EQ(loaded.position_encoding.description, read.position_encoding.description);
  EXPECT_EQ(loaded.parameters, read.parameters);
  EXPECT_EQ(loaded.labels, model.labels());
  EXPECT_EQ(loaded.dtype, model.dtype());
}

TEST(LibraryInfo, BadFolderIsBadInput) {
  EXPECT_EQ(kind_of([] { tinyenc::model_info("/nonexistent/model"); }),
            tinyenc::Error::Kind::kBadInput);
  EXPECT_EQ(kind_of([] { tinyenc::model_info(shipped("order-rope"), "int4"); }),
            tinyenc::Error::Kind::kBadInput);
}

TEST(LibraryInfo, Runtime) {
  EXPECT_FALSE(tinyenc::version().empty());
  const tinyenc::RuntimeInfo here = tinyenc::runtime_info();
  EXPECT_GE(here.cpus, 1);
  EXPECT_EQ(here.cpus, tinyenc::default_threads());
  EXPECT_EQ(tinyenc::most_threads(), 4 * here.cpus);
  const auto& supported = here.supported_pe_kernels;
  EXPECT_NE(std::find(supported.begin(), supported.end(), here.pe_kernels), supported.end());
  EXPECT_NE(std::find(supported.begin(), supported.end(), "scalar"), supported.end());
  EXPECT_FALSE(here.onednn_version.empty());
  EXPECT_FALSE(here.cpu_features.empty());
  const std::vector<std::string> kinds = tinyenc::position_encoding_kinds();
  for (const char* kind : {"none", "sinusoidal", "learned", "rope", "alibi", "relative"}) {
    EXPECT_NE(std::find(kinds.begin(), kinds.end(), kind), kinds.end()) << kind;
  }
}

TEST(LibraryOptions, DtypesAndLimits) {
  EXPECT_EQ(tinyenc::dtype_names(), (std::vector<std::string>{"f32", "bf16", "int8"}));
  EXPECT_EQ(tinyenc::dtype_unsupported_reason("f32"), "");
  tinyenc::check_dtype("");
  tinyenc::check_dtype("f32");
  tinyenc::check_dtype("auto");
  try {
    tinyenc::check_dtype("int4");
    ADD_FAILURE() << "int4 accepted";
  } catch (const tinyenc::Error& e) {
    EXPECT_EQ(e.kind(), tinyenc::Error::Kind::kBadInput);
    EXPECT_EQ(std::string(e.what()), "dtype 'int4': expected f32, bf16, int8 or auto");
  }
  const tinyenc::AutoDtype chosen = tinyenc::auto_dtype();
  EXPECT_EQ(tinyenc::dtype_unsupported_reason(chosen.dtype), "");
  EXPECT_FALSE(chosen.reason.empty());
  EXPECT_EQ(tinyenc::max_position_offset(), 65536);
}

TEST(LibraryBench, RandomPresetRunsAndIsTimed) {
  const tinyenc::Model model = tinyenc::random_model("tiny", "rope");
  EXPECT_EQ(model.dimension(), 128);
  EXPECT_EQ(model.max_tokens(), 0);  // RoPE computes any position
  const tinyenc::ModelInfo info = tinyenc::model_info(model);
  EXPECT_EQ(info.layers, 2);
  EXPECT_EQ(info.heads, 2);
  EXPECT_EQ(info.ffn_dim, 512);
  EXPECT_EQ(info.position_encoding.kind, "rope");
  EXPECT_FALSE(info.tokenizer.has_value());
  EXPECT_FALSE(info.weights.has_value());

  tinyenc::Model timed = tinyenc::random_model("tiny", "rope");
  const std::vector<std::vector<int32_t>> ids = {{5, 17, 42, 7}, {9, 3, 1000, 2}};
  const std::vector<tinyenc::Output> outputs = timed.forward(ids);
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(outputs[0].embedding.size(), 128u);
  EXPECT_EQ(outputs[0].hidden.size(), 4u * 128u);
  // The same seed, the same weights.
  EXPECT_EQ(tinyenc::random_model("tiny", "rope").forward(ids)[0].embedding, outputs[0].embedding);

  std::vector<int32_t> flat;
  for (const std::vector<int32_t>& sequence : ids)
    flat.insert(flat.end(), sequence.begin(), sequence.end());
  const tinyenc::ForwardTiming timing = tinyenc::time_forward(timed, flat, 2);
  EXPECT_GT(timing.seconds, 0);
  for (double stage : {timing.embeddings, timing.qkv, timing.attention, timing.output_projection,
                       timing.ffn, timing.norms, timing.head}) {
    EXPECT_GT(stage, 0);
  }
  EXPECT_LE(timing.stages(), timing.seconds);
  EXPECT_FALSE(tinyenc::matmul_implementation(timed).empty());

  EXPECT_EQ(kind_of([&] { tinyenc::time_forward(timed, flat, 3); }),
            tinyenc::Error::Kind::kBadInput);
  EXPECT_EQ(kind_of([&] {
              tinyenc::time_forward(timed, {0, 1, 30522}, 1);
            }),
            tinyenc::Error::Kind::kBadInput);
  EXPECT_EQ(kind_of([] { tinyenc::random_model("huge"); }), tinyenc::Error::Kind::kBadInput);
  EXPECT_EQ(kind_of([] { tinyenc::random_model("tiny", "spiral"); }),
            tinyenc::Error::Kind::kBadInput);
  EXPECT_EQ(tinyenc::random_presets(), (std::vector<std::string>{"tiny", "mini", "small", "base"}));
}

TEST(LibraryBench, LearnedPresetHasItsTableLength) {
  tinyenc::Model model = tinyenc::random_model("tiny", "learned");
  EXPECT_EQ(model.max_tokens(), 512);
  EXPECT_EQ(kind_of([&] { tinyenc::time_forward(model, std::vector<int32_t>(513, 1), 1); }),
            tinyenc::Error::Kind::kBadInput);
}

TEST(LibraryBench, EncoderAloneAndForwardMemory) {
  tinyenc::Model model = tinyenc::load_encoder(shipped("order-rope"));
  const tinyenc::ModelInfo info = tinyenc::model_info(model);
  EXPECT_FALSE(info.tokenizer.has_value());
  EXPECT_TRUE(info.weights.has_value());
  EXPECT_EQ(model.forward({{0, 5, 6, 2}})[0].embedding.size(),
            static_cast<size_t>(model.dimension()));
  EXPECT_EQ(kind_of([&] { model.embed({"我打你"}); }), tinyenc::Error::Kind::kBadInput);
  // [B, H, T, T] scores and about a dozen [B, T, D] rows, 4 bytes each.
  const double bytes = tinyenc::forward_memory_bytes(info, 2, 16);
  EXPECT_GE(bytes, 4.0 * 2 * info.heads * 16 * 16);
  tinyenc::check_forward_memory(info, 2, 16, "batch x tokens");
  EXPECT_EQ(kind_of([&] {
              tinyenc::check_forward_memory(info, int64_t{1} << 20, int64_t{1} << 20, "big");
            }),
            tinyenc::Error::Kind::kBadInput);
}

TEST(LibraryConvert, WritesAFolderThatLoadsInItsDtype) {
  const tinyenc::testing::TempFolder work("tinyenc_library_convert");
  const tinyenc::ConvertResult result =
      tinyenc::convert(shipped("order-rope"), (work / "int8").string(), "int8");
  EXPECT_GT(result.converted_tensors, 0);
  EXPECT_LT(result.output_bytes, result.input_bytes);
  EXPECT_TRUE(result.not_copied.empty());
  const tinyenc::ModelInfo info = tinyenc::model_info((work / "int8").string());
  EXPECT_EQ(info.stored_dtype, "int8");
  if (tinyenc::dtype_unsupported_reason("int8").empty()) {
    EXPECT_EQ(info.dtype, "int8");
  }
  EXPECT_EQ(
      kind_of([&] { tinyenc::convert(shipped("order-rope"), (work / "f32").string(), "f32"); }),
      tinyenc::Error::Kind::kBadInput);
  EXPECT_EQ(
      kind_of([&] { tinyenc::convert(shipped("order-rope"), (work / "int8").string(), "int8"); }),
      tinyenc::Error::Kind::kBadInput);  // exists and is not empty
}

}  // namespace
