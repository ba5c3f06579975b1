// load_model on synthetic folders of every family: each engine slot gets the tensor of the right
// name (tensor k of a test file starts at value k, so a pointer shows which tensor it reaches),
// unused tensors are reported, and bad folders fail with the file and tensor named. Values are
// compared exactly: loading copies (or widens F16/BF16, exactly) and never computes.
#include "models/model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "tests/models/model_files.h"
#include "tests/support/temp_folder.h"
#include "tests/support/test_data.h"

namespace tinyenc {
namespace {

using testing::bert_config;
using testing::bert_tensors;
using testing::f32_tensor;
using testing::TestDims;
using testing::TestTensor;
using testing::write_model;

// The value a test tensor starts with: its index in `tensors`.
float first_value(const std::vector<TestTensor>& tensors, const std::string& name) {
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].name == name) {
      float value;
      std::memcpy(&value, tensors[i].data.data(), sizeof value);
      return value;
    }
  }
  ADD_FAILURE() << "no tensor " << name;
  return -1.0f;
}

class LoadModelTest : public ::testing::Test {
 protected:
  std::string error_of(const std::filesystem::path& dir) {
    try {
      load_model(dir);
    } catch (const std::exception& e) {
      return e.what();
    }
    return "";
  }
  std::string weights_file() const { return (dir() / "model.safetensors").string(); }
  std::filesystem::path dir() const { return temp_.path() / "model"; }

  testing::TempFolder temp_{"tinyenc_load_model"};
  TestDims dims_;
};

TEST_F(LoadModelTest, BertModelMapsEveryTensor) {
  const std::vector<TestTensor> tensors = bert_tensors(dims_, "", false);
  write_model(dir(), bert_config(dims_), tensors);
  const LoadedModel model = load_model(dir());
  EXPECT_TRUE(model.unused_tensors.empty());
  EXPECT_TRUE(model.ignored_tensors.empty());
  EXPECT_FALSE(model.config.encoder.has_pooler);
  const EncoderWeights& w = model.weights;
  const auto expect = [&](const float* pointer, const std::string& name) {
    ASSERT_NE(pointer, nullptr) << name;
    EXPECT_EQ(pointer[0], first_value(tensors, name)) << name;
  };
  expect(w.token_embeddings, "embeddings.word_embeddings.weight");
  expect(w.position_embeddings, "embeddings.position_embeddings.weight");
  expect(w.token_type_embeddings, "embeddings.token_type_embeddings.weight");
  expect(w.embedding_norm.gamma, "embeddings.LayerNorm.weight");
  expect(w.embedding_norm.beta, "embeddings.LayerNorm.bias");
  ASSERT_EQ(w.layers.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    const std::string p = "encoder.layer." + std::to_string(i) + ".";
    const LayerWeights& layer = w.layers[i];
    expect(layer.query.weight, p + "attention.self.query.weight");
    expect(layer.query.bias, p + "attention.self.query.bias");
    expect(layer.key.weight, p + "attention.self.key.weight");
    expect(layer.key.bias, p + "attention.self.key.bias");
    expect(layer.value.weight, p + "attention.self.value.weight");
    expect(layer.value.bias, p + "attention.self.value.bias");
    expect(layer.attention_output.weight, p + "attention.output.dense.weight");
    expect(layer.attention_output.bias, p + "attention.output.dense.bias");
    expect(layer.attention_norm.gamma, p + "attention.output.LayerNorm.weight");
    expect(layer.attention_norm.beta, p + "attention.output.LayerNorm.bias");
    expect(layer.ffn_in.weight, p + "intermediate.dense.weight");
    expect(layer.ffn_in.bias, p + "intermediate.dense.bias");
    expect(layer.ffn_out.weight, p + "output.dense.weight");
    expect(layer.ffn_out.bias, p + "output.dense.bias");
    expect(layer.ffn_norm.gamma, p + "output.LayerNorm.weight");
    expect(layer.ffn_norm.beta, p + "output.LayerNorm.bias");
    EXPECT_EQ(layer.query.out_features, 8);
    EXPECT_EQ(layer.ffn_in.out_features, 12);
    EXPECT_EQ(layer.ffn_in.in_features, 8);
    EXPECT_EQ(layer.ffn_out.out_features, 8);
    EXPECT_EQ(layer.ffn_out.in_features, 12);
  }
  EXPECT_EQ(w.pooler.weight, nullptr);
  EXPECT_EQ(w.classifier.weight, nullptr);
  EXPECT_EQ(w.final_norm.gamma, nullptr);
  EXPECT_EQ(w.relative_bias, nullptr);
  EXPECT_NE(w.storage, nullptr);
}

TEST_F(LoadModelTest, WeightsOutliveTheLoadedModel) {
  const std::vector<TestTensor> tensors = bert_tensors(dims_, "", false);
  write_model(dir(), bert_config(dims_), tensors);
  EncoderWeights weights;
  {
    LoadedModel model = load_model(dir());
    weights = model.weights;
  }
  EXPECT_EQ(weights.layers[1].ffn_norm.beta[0],
            first_value(tensors, "encoder.layer.1.output.LayerNorm.bias"));
}

TEST_F(LoadModelTest, BertSequenceClassifierWithPrefixPoolerAndClassifier) {
  std::vector<TestTensor> tensors = bert_tensors(dims_, "bert.", true);
  tensors.push_back(f32_tensor("classifier.weight", {3, 8}, 100.0f));
  tensors.push_back(f32_tensor("classifier.bias", {3}, 101.0f));
  nlohmann::json config = bert_config(dims_);
  config["architectures"] = {"BertForSequenceClassification"};
  config["id2label"] = {{"0", "a"}, {"1", "b"}, {"2", "c"}};
  write_model(dir(), config, tensors);
  const LoadedModel model = load_model(dir());
  EXPECT_TRUE(model.unused_tensors.empty());
  EXPECT_EQ(model.config.encoder.pooling, Pooling::kPooler);
  EXPECT_TRUE(model.config.encoder.has_pooler);
  EXPECT_EQ(model.config.encoder.num_labels, 3);
  EXPECT_EQ(model.weights.token_embeddings[0],
            first_value(tensors, "bert.embeddings.word_embeddings.weight"));
  EXPECT_EQ(model.weights.pooler.weight[0], first_value(tensors, "bert.pooler.dense.weight"));
  EXPECT_EQ(model.weights.pooler.bias[0], first_value(tensors, "bert.pooler.dense.bias"));
  EXPECT_EQ(model.weights.classifier.weight[0], 100.0f);
  EXPECT_EQ(model.weights.classifier.bias[0], 101.0f);
  EXPECT_EQ(model.weights.classifier.out_features, 3);
  EXPECT_EQ(model.weights.classifier.in_features, 8);
}

TEST_F(LoadModelTest, SequenceClassifierNeedsItsPooler) {
  std::vector<TestTensor> tensors = bert_tensors(dims_, "bert.", false);
  tensors.push_back(f32_tensor("classifier.weight", {2, 8}, 100.0f));
  tensors.push_back(f32_tensor("classifier.bias", {2}, 101.0f));
  nlohmann::json config = bert_config(dims_);
  config["architectures"] = {"BertForSequenceClassification"};
  write_model(dir(), config, tensors);
  EXPECT_EQ(
      error_of(dir()),
      weights_file() + ": tensor 'bert.pooler.dense.weight': missing (expected shape [8, 8])");
}

TEST_F(LoadModelTest, LegacyGammaBetaNames) {
  std::vector<TestTensor> tensors = bert_tensors(dims_, "", false);
  for (TestTensor& tensor : tensors) {
    for (const auto& [modern, legacy] : {std::pair{"LayerNorm.weight", "LayerNorm.gamma"},
                                         std::pair{"LayerNorm.bias", "LayerNorm.beta"}}) {
      const size_t at = tensor.name.find(modern);
      if (at != std::string::npos) tensor.name.replace(at, std::string(modern).size(), legacy);
    }
  }
  write_model(dir(), bert_config(dims_), tensors);
  const LoadedModel model = load_model(dir());
  EXPECT_TRUE(model.unused_tensors.empty());
  EXPECT_EQ(model.weights.embedding_norm.gamma[0],
            first_value(tensors, "embeddings.LayerNorm.gamma"));
  EXPECT_EQ(model.weights.layers[0].ffn_norm.beta[0],
            first_value(tensors, "encoder.layer.0.output.LayerNorm.beta"));
}

TEST_F(LoadModelTest, ReportsUnusedAndIgnoredTensors) {
  std::vector<TestTensor> tensors = bert_tensors(dims_, "bert.", true);
  tensors.push_back(f32_tensor("cls.predictions.bias", {16}, 50.0f));
  tensors.push_back(
      TestTensor{"bert.embeddings.position_ids", "I64", {1, 10}, std::vector<std::byte>(80)});
  nlohmann::json config = bert_config(dims_);
  config["architectures"] = {"BertForMaskedLM"};
  write_model(dir(), config, tensors);
  const LoadedModel model = load_model(dir());
  EXPECT_EQ(model.unused_tensors, (std::vector<std::string>{"cls.predictions.bias"}));
  EXPECT_EQ(model.ignored_tensors, (std::vector<std::string>{"bert.embeddings.position_ids"}));
  EXPECT_TRUE(model.config.encoder.has_pooler);  // pooler weights present
  EXPECT_EQ(model.config.encoder.pooling, Pooling::kCls);
  EXPECT_EQ(model.config.encoder.num_labels, 0);
}

TEST_F(LoadModelTest, RobertaClassificationHeadIsPoolerThenClassifier) {
  dims_.type_vocab = 1;
  dims_.max_positions = 12;
  std::vector<TestTensor> tensors = bert_tensors(dims_, "roberta.", false);
  tensors.push_back(f32_tensor("classifier.dense.weight", {8, 8}, 200.0f));
  tensors.push_back(f32_tensor("classifier.dense.bias", {8}, 201.0f));
  tensors.push_back(f32_tensor("classifier.out_proj.weight", {2, 8}, 202.0f));
  tensors.push_back(f32_tensor("classifier.out_proj.bias", {2}, 203.0f));
  nlohmann::json config = bert_config(dims_);
  config["model_type"] = "roberta";
  config["architectures"] = {"RobertaForSequenceClassification"};
  config["pad_token_id"] = 1;
  config["id2label"] = {{"0", "NEGATIVE"}, {"1", "POSITIVE"}};
  write_model(dir(), config, tensors);
  const LoadedModel model = load_model(dir());
  EXPECT_TRUE(model.unused_tensors.empty());
  EXPECT_EQ(model.config.encoder.position_encoding.padding_idx, 1);
  EXPECT_EQ(model.config.max_sequence_length, 10);
  EXPECT_EQ(model.config.encoder.pooling, Pooling::kPooler);
  EXPECT_TRUE(model.config.encoder.has_pooler);
  EXPECT_EQ(model.weights.pooler.weight[0], 200.0f);
  EXPECT_EQ(model.weights.pooler.bias[0], 201.0f);
  EXPECT_EQ(model.weights.classifier.weight[0], 202.0f);
  EXPECT_EQ(model.weights.classifier.bias[0], 203.0f);
  EXPECT_EQ(model.config.labels, (std::vector<std::string>{"NEGATIVE", "POSITIVE"}));
}

TEST_F(LoadModelTest, DistilBertNames) {
  std::vector<TestTensor> tensors;
  const auto add = [&](const std::string& name, std::vector<int64_t> shape) {
    tensors.push_back(
        f32_tensor("distilbert." + name, std::move(shape), static_cast<float>(tensors.size())));
  };
  add("embeddings.word_embeddings.weight", {16, 8});
  add("embeddings.position_embeddings.weight", {10, 8});
  add("embeddings.LayerNorm.weight", {8});
  add("embeddings.LayerNorm.bias", {8});
  const std::string p = "transformer.layer.0.";
  for (const char* name :
       {"attention.q_lin", "attention.k_lin", "attention.v_lin", "attention.out_lin"}) {
    add(p + name + ".weight", {8, 8});
    add(p + name + ".bias", {8});
  }
  add(p + "sa_layer_norm.weight", {8});
  add(p + "sa_layer_norm.bias", {8});
  add(p + "ffn.lin1.weight", {12, 8});
  add(p + "ffn.lin1.bias", {12});
  add(p + "ffn.lin2.weight", {8, 12});
  add(p + "ffn.lin2.bias", {8});
  add(p + "output_layer_norm.weight", {8});
  add(p + "output_layer_norm.bias", {8});
  tensors.push_back(f32_tensor("vocab_projector.bias", {16}, 90.0f));
  const nlohmann::json config = {{"model_type", "distilbert"},
                                 {"architectures", {"DistilBertForMaskedLM"}},
                                 {"vocab_size", 16},
                                 {"dim", 8},
                                 {"n_heads", 2},
                                 {"n_layers", 1},
                                 {"hidden_dim", 12},
                                 {"max_position_embeddings", 10},
                                 {"activation", "gelu"}};
  write_model(dir(), config, tensors);
  const LoadedModel model = load_model(dir());
  EXPECT_EQ(model.unused_tensors, (std::vector<std::string>{"vocab_projector.bias"}));
  const LayerWeights& layer = model.weights.layers.at(0);
  const std::string d = "distilbert." + p;
  EXPECT_EQ(layer.query.weight[0], first_value(tensors, d + "attention.q_lin.weight"));
  EXPECT_EQ(layer.key.bias[0], first_value(tensors, d + "attention.k_lin.bias"));
  EXPECT_EQ(layer.value.weight[0], first_value(tensors, d + "attention.v_lin.weight"));
  EXPECT_EQ(layer.attention_output.weight[0], first_value(tensors, d + "attention.out_lin.weight"));
  EXPECT_EQ(layer.attention_norm.gamma[0], first_value(tensors, d + "sa_layer_norm.weight"));
  EXPECT_EQ(layer.ffn_in.weight[0], first_value(tensors, d + "ffn.lin1.weight"));
  EXPECT_EQ(layer.ffn_out.bias[0], first_value(tensors, d + "ffn.lin2.bias"));
  EXPECT_EQ(layer.ffn_norm.beta[0], first_value(tensors, d + "output_layer_norm.bias"));
  EXPECT_EQ(model.weights.token_type_embeddings, nullptr);
  EXPECT_EQ(model.weights.position_embeddings[0],
            first_value(tensors, "distilbert.embeddings.position_embeddings.weight"));
}

TEST_F(LoadModelTest, RoFormerSkipsItsSinusoidalTable) {
  std::vector<TestTensor> tensors = bert_tensors(dims_, "", false);
  testing::remove_tensor(tensors, "embeddings.position_embeddings.weight");
  tensors.push_back(f32_tensor("encoder.embed_positions.weight", {10, 4}, 70.0f));
  nlohmann::json config = bert_config(dims_);
  config["model_type"] = "roformer";
  config["architectures"] = {"RoFormerModel"};
  write_model(dir(), config, tensors);
  const LoadedModel model = load_model(dir());
  EXPECT_TRUE(model.unused_tensors.empty());
  EXPECT_EQ(model.ignored_tensors, (std::vector<std::string>{"encoder.embed_positions.weight"}));
  EXPECT_EQ(model.weights.position_embeddings, nullptr);
  EXPECT_NE(model.weights.token_type_embeddings, nullptr);
}

TEST_F(LoadModelTest, TinyencPreLnRelativeFromF16) {
  // F16 weights, and the data area misaligned: everything is converted into owned buffers.
  std::vector<TestTensor> tensors;
  const auto add = [&](const std::string& name, std::vector<int64_t> shape) {
    int64_t count = 1;
    for (const int64_t size : shape) count *= size;
    // F16 of the tensor's index (exact for small integers): 0x3C00 is 1.0, 0x4000 2.0, ...
    const float index = static_cast<float>(tensors.size());
    uint16_t bits = 0;
    if (index > 0) {
      const int exponent = static_cast<int>(std::floor(std::log2(index)));
      bits =
          static_cast<uint16_t>(((exponent + 15) << 10) |
                                static_cast<int>((index / std::ldexp(1.0f, exponent) - 1) * 1024));
    }
    tensors.push_back(
        testing::u16_tensor(name, "F16", std::move(shape), std::vector<uint16_t>(count, bits)));
  };
  add("embeddings.word_embeddings.weight", {16, 8});
  const std::string p = "encoder.layer.0.";
  for (const char* name : {"attention.self.query", "attention.self.key", "attention.self.value",
                           "attention.output.dense"}) {
    add(p + name + ".weight", {8, 8});
    add(p + name + ".bias", {8});
  }
  add(p + "attention.output.LayerNorm.weight", {8});
  add(p + "attention.output.LayerNorm.bias", {8});
  add(p + "intermediate.dense.weight", {12, 8});
  add(p + "intermediate.dense.bias", {12});
  add(p + "output.dense.weight", {8, 12});
  add(p + "output.dense.bias", {8});
  add(p + "output.LayerNorm.weight", {8});
  add(p + "output.LayerNorm.bias", {8});
  add("encoder.LayerNorm.weight", {8});
  add("encoder.LayerNorm.bias", {8});
  add("encoder.relative_attention_bias.weight", {8, 2});
  const nlohmann::json config = {
      {"model_type", "tinyenc"},
      {"vocab_size", 16},
      {"hidden_size", 8},
      {"num_attention_heads", 2},
      {"num_hidden_layers", 1},
      {"intermediate_size", 12},
      {"norm_first", true},
      {"embedding_layer_norm", false},
      {"pooling", "mean"},
      {"position_encoding", {{"kind", "relative"}, {"num_buckets", 8}, {"max_distance", 16}}}};
  std::filesystem::create_directories(dir());
  testing::write_text(dir() / "config.json", config.dump());
  testing::write_file(dir() / "model.safetensors", testing::safetensors_bytes(tensors, 2));
  const LoadedModel model = load_model(dir());
  EXPECT_TRUE(model.unused_tensors.empty());
  EXPECT_TRUE(model.config.encoder.final_layer_norm);
  const EncoderWeights& w = model.weights;
  EXPECT_EQ(w.token_embeddings[16 * 8 - 1], 0.0f);
  EXPECT_EQ(w.layers[0].query.weight[63], 1.0f);
  EXPECT_EQ(w.layers[0].ffn_norm.beta[7], 16.0f);
  EXPECT_EQ(w.final_norm.gamma[0], 17.0f);
  EXPECT_EQ(w.final_norm.beta[0], 18.0f);
  EXPECT_EQ(w.relative_bias[15], 19.0f);
  EXPECT_EQ(w.embedding_norm.gamma, nullptr);
  EXPECT_EQ(w.position_embeddings, nullptr);
}

TEST_F(LoadModelTest, PreLnNeedsTheFinalLayerNorm) {
  std::vector<TestTensor> tensors = bert_tensors(dims_, "", false);
  const nlohmann::json config = {
      {"model_type", "tinyenc"},
      {"vocab_size", 16},
      {"hidden_size", 8},
      {"num_attention_heads", 2},
      {"num_hidden_layers", 2},
      {"intermediate_size", 12},
      {"type_vocab_size", 2},
      {"norm_first", true},
      {"position_encoding", {{"kind", "learned"}, {"max_positions", 10}}}};
  write_model(dir(), config, tensors);
  EXPECT_EQ(error_of(dir()),
            weights_file() + ": tensor 'encoder.LayerNorm.weight': missing (expected shape [8])");
}

TEST_F(LoadModelTest, MissingFolder) {
  EXPECT_EQ(error_of(temp_.path() / "absent"),
            (temp_.path() / "absent").string() + ": model folder not found");
  testing::write_text(temp_.path() / "file", "x");
  EXPECT_EQ(error_of(temp_.path() / "file"),
            (temp_.path() / "file").string() +
                ": not a folder (a model is a folder with config.json and model.safetensors)");
}

// std::filesystem's throwing calls would report these as "filesystem error: status: ...".
TEST_F(LoadModelTest, SymbolicLinkLoops) {
  const std::filesystem::path loop = temp_.path() / "loop";
  std::filesystem::create_symlink("loop", loop);
  EXPECT_EQ(error_of(loop), loop.string() + ": Too many levels of symbolic links");
  write_model(dir(), bert_config(dims_), bert_tensors(dims_, "", false));
  std::filesystem::remove(dir() / "model.safetensors");
  std::filesystem::create_symlink("model.safetensors", dir() / "model.safetensors");
  EXPECT_EQ(error_of(dir()), weights_file() + ": Too many levels of symbolic links");
}

TEST_F(LoadModelTest, NonFiniteWeight) {
  std::vector<TestTensor> tensors = bert_tensors(dims_, "", false);
  TestTensor value = testing::remove_tensor(tensors, "encoder.layer.0.attention.self.value.weight");
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::memcpy(value.data.data() + 19 * sizeof(float), &nan, sizeof nan);  // [8, 8]: row 2, col 3
  tensors.push_back(value);
  write_model(dir(), bert_config(dims_), tensors);
  EXPECT_EQ(error_of(dir()), weights_file() +
                                 ": tensor 'encoder.layer.0.attention.self.value.weight': element "
                                 "[2, 3] (index 19) is NaN; weights must be finite");
}

TEST_F(LoadModelTest, MissingFiles) {
  std::filesystem::create_directories(dir());
  EXPECT_EQ(error_of(dir()),
            (dir() / "config.json").string() + ": cannot open (a model folder needs config.json)");
  testing::write_text(dir() / "config.json", bert_config(dims_).dump());
  EXPECT_EQ(error_of(dir()), weights_file() + ": cannot open: No such file or directory");
  testing::write_text(dir() / "pytorch_model.bin", "x");
  EXPECT_EQ(error_of(dir()), weights_file() +
                                 ": not found; the folder has pytorch_model.bin, which "
                                 "tools/convert_checkpoint.py turns into model.safetensors");
}

TEST_F(LoadModelTest, TensorMissing) {
  std::vector<TestTensor> tensors = bert_tensors(dims_, "", false);
  testing::remove_tensor(tensors, "encoder.layer.1.attention.self.value.bias");
  write_model(dir(), bert_config(dims_), tensors);
  EXPECT_EQ(error_of(dir()), weights_file() +
                                 ": tensor 'encoder.layer.1.attention.self.value.bias': missing "
                                 "(expected shape [8])");
}

TEST_F(LoadModelTest, WrongShape) {
  std::vector<TestTensor> tensors = bert_tensors(dims_, "", false);
  testing::remove_tensor(tensors, "encoder.layer.0.intermediate.dense.weight");
  tensors.push_back(f32_tensor("encoder.layer.0.intermediate.dense.weight", {8, 12}, 0.0f));
  write_model(dir(), bert_config(dims_), tensors);
  EXPECT_EQ(error_of(dir()), weights_file() +
                                 ": tensor 'encoder.layer.0.intermediate.dense.weight': expected "
                                 "shape [12, 8] from config.json, got [8, 12]");
}

TEST_F(LoadModelTest, VocabularyLargerThanTheEmbeddingTable) {
  write_model(dir(), bert_config(dims_), bert_tensors(dims_, "", false));
  nlohmann::json config = bert_config(dims_);
  config["vocab_size"] = 17;
  testing::write_text(dir() / "config.json", config.dump());
  EXPECT_EQ(error_of(dir()), weights_file() +
                                 ": tensor 'embeddings.word_embeddings.weight': expected shape "
                                 "[17, 8] from config.json, got [16, 8]");
}

TEST_F(LoadModelTest, UnsupportedDtypeInAWeight) {
  std::vector<TestTensor> tensors = bert_tensors(dims_, "", false);
  testing::remove_tensor(tensors, "embeddings.LayerNorm.bias");
  tensors.push_back(
      TestTensor{"embeddings.LayerNorm.bias", "I32", {8}, std::vector<std::byte>(32)});
  write_model(dir(), bert_config(dims_), tensors);
  EXPECT_EQ(error_of(dir()), weights_file() +
                                 ": tensor 'embeddings.LayerNorm.bias': unsupported dtype I32 "
                                 "(weights must be F32, F16 or BF16)");
}

TEST_F(LoadModelTest, BadConfigNamesConfigJson) {
  nlohmann::json config = bert_config(dims_);
  config["num_attention_heads"] = 3;
  write_model(dir(), config, bert_tensors(dims_, "", false));
  EXPECT_EQ(error_of(dir()), (dir() / "config.json").string() +
                                 ": hidden_size: 8 is not divisible by num_attention_heads 3");
}

TEST_F(LoadModelTest, EngineRulesApplyWithTheFileNamed) {
  // Parsing allows a 4-wide rotation inside a 5-wide head; the engine (validate) does not.
  dims_.d_model = 20;
  dims_.heads = 4;
  dims_.type_vocab = 0;
  const nlohmann::json config = {{"model_type", "tinyenc"},
                                 {"vocab_size", 16},
                                 {"hidden_size", 20},
                                 {"num_attention_heads", 4},
                                 {"num_hidden_layers", 2},
                                 {"intermediate_size", 12},
                                 {"position_encoding", {{"kind", "rope"}, {"rotary_dim", 4}}}};
  write_model(dir(), config, bert_tensors(dims_, "", false));
  const std::string error = error_of(dir());
  const std::string file = (dir() / "config.json").string() + ": ";
  EXPECT_EQ(error.substr(0, file.size()), file) << error;
  EXPECT_NE(error.find("head_dim"), std::string::npos) << error;
}

// The committed golden encoders (tools/golden/encoder_goldens.py) load without leftovers.
TEST_F(LoadModelTest, GoldenEncodersLoadCompletely) {
  const std::filesystem::path root = testing::source_dir() / "tests/golden/encoders";
  // Committed with the source: a missing folder or file is a broken checkout, not a skip.
  ASSERT_TRUE(std::filesystem::is_directory(root)) << "missing committed goldens " << root;
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(root)) {
    ASSERT_TRUE(std::filesystem::exists(entry.path() / "model.safetensors"))
        << "missing committed " << entry.path() / "model.safetensors";
    SCOPED_TRACE(entry.path().string());
    const LoadedModel model = load_model(entry.path());
    EXPECT_TRUE(model.unused_tensors.empty()) << model.unused_tensors.front();
    EXPECT_EQ(model.weights.layers.size(), static_cast<size_t>(model.config.encoder.layers));
    ++count;
  }
  EXPECT_GT(count, 0);
}

}  // namespace
}  // namespace tinyenc
