// Converted model folders (tinyenc convert, models/convert_model.h) and the loader's reading of
// them: the conversion against a hand reference, what the output folder holds, that it loads
// into exactly what converting at load gives, and every way a converted file can be wrong,
// refused with the file and tensor named.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "engine/dtype.h"
#include "engine/ops/quantize.h"
#include "engine/ops/runtime.h"
#include "engine/ops/weight_matrix.h"
#include "models/convert_model.h"
#include "models/dtype_choice.h"
#include "models/model.h"
#include "models/pipeline.h"
#include "models/safetensors.h"
#include "tests/models/model_files.h"
#include "tests/support/temp_folder.h"
#include "tests/support/test_data.h"

namespace tinyenc {
namespace {

namespace fs = std::filesystem;
using testing::bert_config;
using testing::bert_tensors;
using testing::TestDims;
using testing::TestTensor;
using testing::write_model;

std::string error_of(const std::function<void()>& work) {
  try {
    work();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

// --- Dtype choice
// ----------------------------------------------------------------------------------

TEST(DtypeChoice, DefaultsFollowTheFolder) {
  EXPECT_EQ(choose_dtype("", std::nullopt).dtype, ComputeDtype::kF32);
  const DtypeChoice int8 = choose_dtype("", ComputeDtype::kInt8);
  if (dtype_unsupported_reason(ComputeDtype::kInt8).empty()) {
    EXPECT_EQ(int8.dtype, ComputeDtype::kInt8);
  } else {
    EXPECT_EQ(int8.dtype, ComputeDtype::kF32);
  }
  const DtypeChoice bf16 = choose_dtype("", ComputeDtype::kBF16);
  const std::string missing = dtype_unsupported_reason(ComputeDtype::kBF16);
  EXPECT_EQ(bf16.dtype, missing.empty() ? ComputeDtype::kBF16 : ComputeDtype::kF32);
  if (!missing.empty()) {
    EXPECT_NE(bf16.reason.find(missing), std::string::npos) << bf16.reason;
  }
  EXPECT_EQ(choose_dtype("f32", ComputeDtype::kInt8).dtype, ComputeDtype::kF32);  // asked wins
  EXPECT_EQ(choose_dtype("auto", std::nullopt).dtype, auto_compute_dtype().dtype);
}

TEST(DtypeChoice, UnknownAndUnsupportedAreRefused) {
  EXPECT_NE(error_of([] {
              choose_dtype("fp16", std::nullopt);
            }).find("dtype 'fp16': expected f32, bf16, int8 or auto"),
            std::string::npos);
  const std::string missing = dtype_unsupported_reason(ComputeDtype::kBF16);
  if (missing.empty()) {
    EXPECT_EQ(choose_dtype("bf16", std::nullopt).dtype, ComputeDtype::kBF16);
  } else {
    EXPECT_EQ(error_of([] { choose_dtype("bf16", std::nullopt); }), "dtype bf16: " + missing);
  }
}

// --- Converting a synthetic BERT
// -------------------------------------------------------------------

class ConvertTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tensors_ = bert_tensors(dims_, "", true);
    write_model(input(), bert_config(dims_), tensors_);
    testing::write_text(input() / "vocab.txt", "[PAD]\n[UNK]\n");
    fs::create_directories(input() / "1_Pooling");
    testing::write_text(input() / "1_Pooling" / "config.json", "{}");
  }
  fs::path input() const { return temp_.path() / "in"; }
  fs::path output() const { return temp_.path() / "out"; }

  testing::TempFolder temp_{"tinyenc_convert_model"};
  TestDims dims_;
  std::vector<TestTensor> tensors_;
};

TEST_F(ConvertTest, Int8FolderHoldsWhatTheLoaderQuantizes) {
  const ConversionSummary summary = convert_model(input(), output(), ComputeDtype::kInt8);
  // 2 layers x 6 Linear weights, the pooler, 3 embeddings.
  EXPECT_EQ(summary.converted_tensors, 2 * 6 + 1 + 3);
  EXPECT_EQ(testing::read_bytes(output() / "vocab.txt").size(), 12u);
  EXPECT_TRUE(fs::exists(output() / "1_Pooling" / "config.json"));
  EXPECT_TRUE(fs::exists(output() / "config.json"));

  SafetensorsFile original(input() / "model.safetensors");
  SafetensorsFile converted(output() / "model.safetensors");
  EXPECT_EQ(converted.metadata().at("tinyenc_dtype"), "int8");
  for (const char* tensor_name :
       {"encoder.layer.1.intermediate.dense.weight", "embeddings.word_embeddings.weight"}) {
    const std::string name = tensor_name;
    const TensorInfo& info = *converted.find(name);
    ASSERT_EQ(info.dtype, DType::kI8) << name;
    const TensorInfo& scale = *converted.find(name + "_scale");
    ASSERT_EQ(scale.dtype, DType::kF32);
    ASSERT_EQ(scale.shape, std::vector<int64_t>{info.shape[0]});
    // Against the formula applied to the original's values, row by row.
    const float* values = original.float32(*original.find(name));
    const int64_t columns = info.shape[1];
    for (int64_t r = 0; r < info.shape[0]; ++r) {
      float largest = 0;
      for (int64_t c = 0; c < columns; ++c) {
        largest = std::max(largest, std::fabs(values[r * columns + c]));
      }
      const float scale_value = largest / 127.0f;
      EXPECT_EQ(converted.float32(scale)[r], scale_value) << name << " row " << r;
      for (int64_t c = 0; c < columns; ++c) {
        // engine/ops/quantize.h: round half to even of w x (1 / scale).
        const float q = std::nearbyint(values[r * columns + c] * (1.0f / scale_value));
        ASSERT_EQ(converted.int8(info)[r * columns + c], static_cast<int8_t>(q));
      }
    }
  }
  EXPECT_EQ(converted.find("embeddings.LayerNorm.weight")->dtype, DType::kF32);
  EXPECT_EQ(converted.find("encoder.layer.0.output.dense.bias")->dtype, DType::kF32);
}

// A converted folder and the original converted at load give the engine the same bytes: the
// folder hands over its s8 or bf16 Linear weights as stored, the original its float ones, which
// the engine's WeightMatrix converts; the embeddings come rounded alike from the loader.
TEST_F(ConvertTest, ConvertedFolderLoadsAsConvertingAtLoad) {
  for (ComputeDtype dtype : {ComputeDtype::kInt8, ComputeDtype::kBF16}) {
    const fs::path out = output().string() + std::string(compute_dtype_name(dtype));
    convert_model(input(), out, dtype);
    if (!dtype_unsupported_reason(dtype).empty()) {
      // This CPU cannot run it: the folder still loads, widened to f32, with the same values.
      const LoadedModel folder = load_model(out);
      EXPECT_EQ(folder.config.encoder.dtype, ComputeDtype::kF32);
      continue;
    }
    const std::string name(compute_dtype_name(dtype));
    const LoadedModel folder = load_model(out);  // its default
    const LoadedModel at_load = load_model(input(), name);
    EXPECT_EQ(folder.config.encoder.dtype, dtype);
    EXPECT_EQ(folder.stored_dtype, dtype);
    const int64_t d = dims_.d_model;
    Runtime runtime;
    const auto same_linear = [&](const LinearWeights& a, const LinearWeights& b) {
      const size_t n = static_cast<size_t>(a.out_features * a.in_features);
      if (dtype == ComputeDtype::kInt8) {
        ASSERT_NE(a.weight_s8, nullptr);
      } else {
        ASSERT_NE(a.weight_bf16, nullptr);
      }
      EXPECT_EQ(a.weight, nullptr);
      ASSERT_NE(b.weight, nullptr);
      const WeightMatrix stored(runtime, LinearSource::of(a), dtype);
      const WeightMatrix converted(runtime, LinearSource::of(b), dtype);
      EXPECT_TRUE(stored.keeps_source());
      EXPECT_FALSE(converted.keeps_source());
      const size_t element_bytes = dtype == ComputeDtype::kInt8 ? 1 : 2;
      EXPECT_EQ(std::memcmp(stored.data(), converted.data(), element_bytes * n), 0);
      if (dtype == ComputeDtype::kInt8) {
        EXPECT_EQ(std::memcmp(stored.scales(), converted.scales(), 4 * a.out_features), 0);
      }
      EXPECT_EQ(std::memcmp(a.bias, b.bias, 4 * a.out_features), 0);
    };
    for (size_t l = 0; l < folder.weights.layers.size(); ++l) {
      const LayerWeights& a = folder.weights.layers[l];
      const LayerWeights& b = at_load.weights.layers[l];
      same_linear(a.query, b.query);
      same_linear(a.ffn_in, b.ffn_in);
      same_linear(a.ffn_out, b.ffn_out);
    }
    same_linear(folder.weights.pooler, at_load.weights.pooler);
    EXPECT_EQ(std::memcmp(folder.weights.token_embeddings, at_load.weights.token_embeddings,
                          4 * dims_.vocab * d),
              0);
    EXPECT_EQ(std::memcmp(folder.weights.position_embeddings, at_load.weights.position_embeddings,
                          4 * dims_.max_positions * d),
              0);
    // And the embeddings are the originals rounded as the dtype stores them: s8 per row with
    // its scale, or bf16 (the synthetic table's i / 1024 values are bf16 numbers already).
    const LoadedModel original = load_model(input(), "f32");
    const int64_t vocab = dims_.vocab;
    std::vector<float> rounded(static_cast<size_t>(vocab * d));
    if (dtype == ComputeDtype::kInt8) {
      std::vector<int8_t> q(rounded.size());
      std::vector<float> scales(static_cast<size_t>(vocab));
      quantize_weights_s8(original.weights.token_embeddings, vocab, d, q.data(), scales.data());
      for (size_t i = 0; i < rounded.size(); ++i) rounded[i] = q[i] * scales[i / size_t(d)];
    } else {
      for (size_t i = 0; i < rounded.size(); ++i) {
        rounded[i] = f32_from_bf16(bf16_from_f32(original.weights.token_embeddings[i]));
      }
    }
    EXPECT_EQ(std::memcmp(folder.weights.token_embeddings, rounded.data(), 4 * rounded.size()), 0)
        << name;
  }
}

TEST_F(ConvertTest, Bf16FolderIsBf16) {
  const ConversionSummary summary = convert_model(input(), output(), ComputeDtype::kBF16);
  SafetensorsFile converted(output() / "model.safetensors");
  EXPECT_EQ(converted.metadata().at("tinyenc_dtype"), "bf16");
  const TensorInfo& weight = *converted.find("encoder.layer.0.attention.self.key.weight");
  EXPECT_EQ(weight.dtype, DType::kBF16);
  EXPECT_EQ(converted.find("encoder.layer.0.attention.self.key.bias")->dtype, DType::kF32);
  EXPECT_EQ(converted.find("encoder.layer.0.attention.self.key.weight_scale"), nullptr);
  EXPECT_LT(summary.output_bytes, summary.input_bytes);
}

TEST_F(ConvertTest, RefusesWhatItCannotWrite) {
  EXPECT_NE(error_of([&] {
              convert_model(input(), input(), ComputeDtype::kInt8);
            }).find("is the input folder"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              convert_model(input(), input() / "sub", ComputeDtype::kInt8);
            }).find("inside the input folder"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              convert_model(input(), output(), ComputeDtype::kF32);
            }).find("writes int8 or bf16"),
            std::string::npos);
  fs::create_directories(output());
  testing::write_text(output() / "notes.txt", "mine");
  EXPECT_NE(error_of([&] {
              convert_model(input(), output(), ComputeDtype::kInt8);
            }).find("exists and is not empty"),
            std::string::npos);
  EXPECT_EQ(testing::read_bytes(output() / "notes.txt").size(), 4u);  // untouched
  const fs::path file = temp_.path() / "file";
  testing::write_text(file, "x");
  EXPECT_NE(
      error_of([&] { convert_model(input(), file, ComputeDtype::kInt8); }).find("is not a folder"),
      std::string::npos);
  // An empty folder is taken, and nothing is left beside it.
  const fs::path empty = temp_.path() / "empty";
  fs::create_directories(empty);
  convert_model(input(), empty, ComputeDtype::kInt8);
  EXPECT_TRUE(fs::exists(empty / "model.safetensors"));
  EXPECT_NE(error_of([&] {
              convert_model(empty, temp_.path() / "again", ComputeDtype::kBF16);
            }).find("already converted to int8"),
            std::string::npos);
  for (const fs::directory_entry& entry : fs::directory_iterator(temp_.path())) {
    EXPECT_EQ(entry.path().filename().string().find(".tinyenc-tmp"), std::string::npos);
  }
}

// --- Converted files that are wrong
// ----------------------------------------------------------------

class ConvertedFileErrorTest : public ConvertTest {
 protected:
  void SetUp() override {
    ConvertTest::SetUp();
    convert_model(input(), output(), ComputeDtype::kInt8);
    SafetensorsFile file(output() / "model.safetensors");
    for (const TensorInfo& info : file.tensors()) {
      const auto bytes = file.data(info);
      converted_.push_back({info.name, std::string(dtype_name(info.dtype)), info.shape,
                            std::vector<std::byte>(bytes.begin(), bytes.end())});
    }
    metadata_ = file.metadata();
  }
  // The converted tensors changed by `change`, written with `metadata`, loaded: the error, its
  // file named FILE.
  std::string load_changed(const std::function<void(std::vector<TestTensor>&)>& change,
                           const std::string& metadata = "int8") {
    std::vector<TestTensor> tensors = converted_;
    change(tensors);
    const fs::path dir = temp_.path() / ("bad" + std::to_string(++count_));
    nlohmann::json header = testing::safetensors_header(tensors);
    if (!metadata.empty()) header["__metadata__"] = {{"tinyenc_dtype", metadata}};
    std::vector<std::byte> data;
    for (const TestTensor& tensor : tensors) {
      data.insert(data.end(), tensor.data.begin(), tensor.data.end());
    }
    fs::create_directories(dir);
    fs::copy_file(output() / "config.json", dir / "config.json");
    testing::write_file(dir / "model.safetensors", testing::safetensors_bytes(header.dump(), data));
    const std::string file = (dir / "model.safetensors").string();
    std::string error = error_of([&] { load_model(dir); });
    if (error.rfind(file, 0) == 0) error.replace(0, file.size(), "FILE");  // as file_ spells it
    return error;
  }
  static TestTensor& find(std::vector<TestTensor>& tensors, const std::string& name) {
    for (TestTensor& tensor : tensors) {
      if (tensor.name == name) return tensor;
    }
    throw std::logic_error("no " + name);
  }
  static void set_float(TestTensor& tensor, size_t index, float value) {
    std::memcpy(tensor.data.data() + 4 * index, &value, 4);
  }

  std::vector<TestTensor> converted_;
  std::map<std::string, std::string> metadata_;
  const std::string file_ = "FILE";
  int count_ = 0;
};

const std::string kQuery = "encoder.layer.0.attention.self.query.weight";

TEST_F(ConvertedFileErrorTest, TheUnchangedCopyLoads) {
  EXPECT_EQ(load_changed([](std::vector<TestTensor>&) {}), "");
}

TEST_F(ConvertedFileErrorTest, I8WithoutItsScale) {
  EXPECT_EQ(
      load_changed([](auto& t) { testing::remove_tensor(t, kQuery + "_scale"); }),
      file_ + ": tensor '" + kQuery + "': I8 without its scales '" + kQuery + "_scale' (F32 [8])");
}

TEST_F(ConvertedFileErrorTest, ScaleOfTheWrongShapeOrDtype) {
  EXPECT_EQ(load_changed([](auto& t) {
              TestTensor& scale = find(t, kQuery + "_scale");
              scale.shape = {4, 2};
            }),
            file_ + ": tensor '" + kQuery + "_scale': scales of '" + kQuery +
                "' must be F32 [8], got F32 [4, 2]");
  EXPECT_NE(load_changed([](auto& t) {
              TestTensor& scale = find(t, kQuery + "_scale");
              scale.dtype = "I32";
            }).find("must be F32 [8], got I32 [8]"),
            std::string::npos);
}

TEST_F(ConvertedFileErrorTest, ScalesMustBeFiniteAndPositive) {
  EXPECT_NE(load_changed([](auto& t) { set_float(find(t, kQuery + "_scale"), 3, 0.0f); })
                .find("tensor '" + kQuery +
                      "_scale': element [3] is 0.000000; scales must be "
                      "positive"),
            std::string::npos);
  EXPECT_NE(load_changed([](auto& t) {
              set_float(find(t, kQuery + "_scale"), 1, -0.5f);
            }).find("element [1] is -0.500000; scales must be positive"),
            std::string::npos);
  EXPECT_NE(load_changed([](auto& t) {
              set_float(find(t, kQuery + "_scale"), 2, std::numeric_limits<float>::infinity());
            }).find("tensor '" + kQuery + "_scale': element [2] (index 2) is +Inf"),
            std::string::npos);
}

TEST_F(ConvertedFileErrorTest, ScaleOfATensorThatIsNotI8) {
  const std::string bias = "encoder.layer.0.attention.self.query.bias";
  EXPECT_EQ(
      load_changed([&](auto& t) {
        TestTensor scale = find(t, kQuery + "_scale");
        scale.name = bias + "_scale";
        t.push_back(scale);
      }),
      file_ + ": tensor '" + bias + "_scale': a scale of '" + bias + "', which is F32, not I8");
}

TEST_F(ConvertedFileErrorTest, I8WhereAFloatIsRequired) {
  const std::string norm = "embeddings.LayerNorm.weight";
  EXPECT_EQ(load_changed([&](auto& t) {
              TestTensor& tensor = find(t, norm);
              tensor = {norm, "I8", {1, dims_.d_model}, std::vector<std::byte>(dims_.d_model)};
              t.push_back({norm + "_scale", "F32", {1}, testing::f32_tensor("", {1}, 1.0f).data});
            }),
            file_ + ": tensor '" + norm + "': expected shape [8] from config.json, got [1, 8]");
  // The right shape is a vector, which cannot be I8 at all.
  EXPECT_NE(load_changed([&](auto& t) {
              TestTensor& tensor = find(t, norm);
              tensor = {norm, "I8", {dims_.d_model}, std::vector<std::byte>(dims_.d_model)};
            }).find("tensor '" + norm + "': I8 with shape [8]; quantized tensors are matrices"),
            std::string::npos);
}

TEST_F(ConvertedFileErrorTest, MetadataMustAgreeWithTheTensors) {
  EXPECT_EQ(load_changed([](auto&) {}, ""),
            file_ + ": tensor '" + std::string("embeddings.position_embeddings.weight") +
                "': I8, but the file's __metadata__ does not say \"tinyenc_dtype\": \"int8\" "
                "(the mark of a folder written by tinyenc convert --dtype int8)");
  EXPECT_NE(load_changed([](auto&) {}, "bf16").find("does not say \"tinyenc_dtype\": \"int8\""),
            std::string::npos);
  EXPECT_EQ(load_changed([](auto&) {}, "int4"),
            file_ + ": __metadata__.tinyenc_dtype: 'int4' is not int8 or bf16");
  // int8 metadata over a float Linear weight.
  std::vector<TestTensor> original = bert_tensors(dims_, "", true);
  const TestTensor query = find(original, kQuery);
  EXPECT_EQ(load_changed([&](auto& t) {
              testing::remove_tensor(t, kQuery + "_scale");
              find(t, kQuery) = query;
            }),
            file_ + ": tensor '" + kQuery +
                "': F32, but the file's __metadata__ says \"tinyenc_dtype\": \"int8\" (Linear "
                "weights I8)");
}

// --- A real checkpoint and the shipped models
// --------------------------------------------------------

// Sizes reported in the commit; the ratio is what the format promises.
void expect_smaller(const fs::path& input, const fs::path& output, ComputeDtype dtype,
                    double at_least) {
  const ConversionSummary summary = convert_model(input, output, dtype);
  const double ratio =
      static_cast<double>(summary.input_bytes) / static_cast<double>(summary.output_bytes);
  EXPECT_GE(ratio, at_least) << input << " " << compute_dtype_name(dtype) << ": "
                             << summary.input_bytes << " -> " << summary.output_bytes;
  const LoadedModel model = load_model(output, "f32");
  EXPECT_EQ(model.stored_dtype, dtype);
  EXPECT_TRUE(model.unused_tensors.empty());
}

TEST(ConvertRealModels, ShippedOrderModelShrinks) {
  const testing::TempFolder temp("tinyenc_convert_real_model");
  const fs::path rope = testing::source_dir() / "models" / "pretrained" / "order-rope";
  expect_smaller(rope, temp.path() / "int8", ComputeDtype::kInt8, 3.3);
  expect_smaller(rope, temp.path() / "bf16", ComputeDtype::kBF16, 1.9);
  EXPECT_TRUE(fs::exists(temp.path() / "int8" / "tokenizer.model"));
}

TEST(ConvertRealModels, TestdataBertShrinks) {
  TINYENC_REQUIRE_TESTDATA(testdata);
  const testing::TempFolder temp("tinyenc_convert_real_model");
  expect_smaller(testdata / "models" / "tiny_bert", temp.path() / "int8", ComputeDtype::kInt8, 3.0);
}

// The shipped model converted to `dtype` gives, bit for bit, the outputs of the original run
// with --dtype `dtype`: the claim that a converted folder is just a stored conversion.
void expect_converted_outputs_identical(ComputeDtype dtype) {
  const std::string name(compute_dtype_name(dtype));
  const testing::TempFolder temp("tinyenc_convert_real_model");
  const fs::path rope = testing::source_dir() / "models" / "pretrained" / "order-rope";
  convert_model(rope, temp.path() / name, dtype);
  PipelineOptions at_load;
  at_load.dtype = name;
  Pipeline original(rope, at_load);
  Pipeline converted(temp.path() / name);
  ASSERT_EQ(converted.model().config.encoder.dtype, dtype);
  std::vector<Encoding> batch;
  for (const char* text : {"我打你", "你打我", "小明追小红", "小红追小明"}) {
    batch.push_back(original.encode(text));
  }
  const std::vector<TextOutput> a = original.run(batch, true);
  const std::vector<TextOutput> b = converted.run(batch, true);
  const std::vector<TextOutput> reference = Pipeline(rope).run(batch, true);
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].hidden.size(), b[i].hidden.size());
    EXPECT_EQ(std::memcmp(a[i].hidden.data(), b[i].hidden.data(), 4 * a[i].hidden.size()), 0)
        << name << " text " << i;
    EXPECT_EQ(a[i].logits, b[i].logits) << name << " text " << i;
    EXPECT_NE(a[i].logits, reference[i].logits) << name << " text " << i << " ran in f32";
  }
}

TEST(ConvertRealModels, Int8FolderGivesTheOutputsOfConvertingAtLoad) {
  const std::string missing = dtype_unsupported_reason(ComputeDtype::kInt8);
  if (!missing.empty()) GTEST_SKIP() << missing;
  expect_converted_outputs_identical(ComputeDtype::kInt8);
}

TEST(ConvertRealModels, Bf16FolderGivesTheOutputsOfConvertingAtLoad) {
  const std::string missing = dtype_unsupported_reason(ComputeDtype::kBF16);
  if (!missing.empty()) GTEST_SKIP() << missing;
  expect_converted_outputs_identical(ComputeDtype::kBF16);
}

}  // namespace
}  // namespace tinyenc
