// sentence-transformers folders: modules.json and 1_Pooling/config.json choose the pooling,
// 2_Normalize the L2 normalization. The folders are a shipped model (order-learned, made a base
// model: no id2label, [CLS] pooling in its config.json) with the module files sentence-transformers
// writes; the pooled embedding is checked against the mean of the last hidden states and its
// normalization computed here.
#include "models/sentence_transformers.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "engine/encoder.h"
#include "models/model.h"
#include "models/normalize_embedding.h"
#include "tests/models/model_files.h"
#include "tests/support/temp_folder.h"
#include "tests/support/test_data.h"

namespace tinyenc {
namespace {

using testing::write_text;

nlohmann::json pooling_config(const std::string& mode, int64_t dimension = 64) {
  nlohmann::json config = {{"word_embedding_dimension", dimension},
                           {"pooling_mode_cls_token", false},
                           {"pooling_mode_mean_tokens", false},
                           {"pooling_mode_max_tokens", false},
                           {"pooling_mode_mean_sqrt_len_tokens", false},
                           {"pooling_mode_weightedmean_tokens", false},
                           {"pooling_mode_lasttoken", false},
                           {"include_prompt", true}};
  config["pooling_mode_" + mode] = true;
  return config;
}

nlohmann::json modules(bool normalize) {
  nlohmann::json list = nlohmann::json::array();
  list.push_back({{"idx", 0},
                  {"name", "0"},
                  {"path", ""},
                  {"type", "sentence_transformers.models.Transformer"}});
  list.push_back({{"idx", 1},
                  {"name", "1"},
                  {"path", "1_Pooling"},
                  {"type", "sentence_transformers.models.Pooling"}});
  if (normalize) {
    list.push_back({{"idx", 2},
                    {"name", "2"},
                    {"path", "2_Normalize"},
                    {"type", "sentence_transformers.models.Normalize"}});
  }
  return list;
}

class SentenceTransformersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::filesystem::path shipped =
        testing::source_dir() / "models" / "pretrained" / "order-learned";
    std::filesystem::create_directories(dir());
    nlohmann::json config = testing::read_json(shipped / "config.json");
    config.erase("id2label");
    config["pooling"] = "cls";
    write_text(dir() / "config.json", config.dump(2));
    for (const char* name : {"model.safetensors", "tokenizer.model"}) {
      std::filesystem::copy_file(shipped / name, dir() / name);
    }
  }

  // Writes the module files; `pooling` is 1_Pooling/config.json's text.
  void write_modules(const std::string& modules_text, const std::string& pooling) {
    write_text(dir() / "modules.json", modules_text);
    std::filesystem::create_directories(dir() / "1_Pooling");
    write_text(dir() / "1_Pooling" / "config.json", pooling);
    std::filesystem::create_directories(dir() / "2_Normalize");
  }
  void write_standard_modules(const std::string& mode, bool normalize) {
    write_modules(modules(normalize).dump(2), pooling_config(mode).dump(2));
  }

  std::string error_of() {
    try {
      read_model_config(dir());
    } catch (const std::exception& e) {
      return e.what();
    }
    return "";
  }
  std::filesystem::path dir() const { return temp_.path() / "st"; }
  std::string file(const std::string& name) const { return (dir() / name).string(); }

  testing::TempFolder temp_{"tinyenc_sentence_transformers"};
};

TEST_F(SentenceTransformersTest, WithoutModulesTheConfigDecides) {
  const ModelConfig config = read_model_config(dir());
  EXPECT_EQ(config.encoder.pooling, Pooling::kCls);
  EXPECT_FALSE(config.normalize_embeddings);
}

TEST_F(SentenceTransformersTest, PoolingModuleChoosesMeanAndNormalizeIsOptional) {
  write_standard_modules("mean_tokens", true);
  ModelConfig config = read_model_config(dir());
  EXPECT_EQ(config.encoder.pooling, Pooling::kMean);
  EXPECT_TRUE(config.normalize_embeddings);

  write_standard_modules("mean_tokens", false);
  config = read_model_config(dir());
  EXPECT_EQ(config.encoder.pooling, Pooling::kMean);
  EXPECT_FALSE(config.normalize_embeddings);
}

// sentence-transformers truncates to sentence_bert_config.json's max_seq_length, special tokens
// included; a larger value than the position table allows changes nothing.
TEST_F(SentenceTransformersTest, MaxSeqLengthCapsTheModelsLength) {
  write_standard_modules("mean_tokens", true);
  const int64_t table_length = read_model_config(dir()).max_sequence_length;
  ASSERT_GT(table_length, 16);
  write_text(dir() / "sentence_bert_config.json",
             R"({"max_seq_length": 16, "do_lower_case": false})");
  EXPECT_EQ(read_model_config(dir()).max_sequence_length, 16);
  write_text(dir() / "sentence_bert_config.json", R"({"max_seq_length": 100000})");
  EXPECT_EQ(read_model_config(dir()).max_sequence_length, table_length);
  write_text(dir() / "sentence_bert_config.json", R"({"max_seq_length": 0})");
  EXPECT_NE(error_of().find("sentence_bert_config.json: max_seq_length"), std::string::npos)
      << error_of();
}

TEST_F(SentenceTransformersTest, PoolingModuleChoosesCls) {
  nlohmann::json config = testing::read_json(dir() / "config.json");
  config["pooling"] = "mean";
  write_text(dir() / "config.json", config.dump());
  write_standard_modules("cls_token", true);
  EXPECT_EQ(read_model_config(dir()).encoder.pooling, Pooling::kCls);
}

// The embedding sentence-transformers computes: the mean of the last hidden states of the
// text's tokens (special tokens included, padding not), divided by its L2 norm.
TEST_F(SentenceTransformersTest, EmbeddingIsTheNormalizedMeanOfTheLastHiddenStates) {
  write_standard_modules("mean_tokens", true);
  const LoadedModel model = load_model(dir());
  ASSERT_TRUE(model.config.normalize_embeddings);
  const int64_t d = model.config.encoder.d_model;
  Encoder encoder(model.config.encoder, model.weights);
  // Two texts of different lengths in one padded batch.
  std::vector<int32_t> ids = {1, 5, 9, 12, 2, 1, 7, 2, 0, 0};
  std::vector<int32_t> lengths = {5, 3};
  const EncoderInput input{2, 5, ids.data(), lengths.data(), nullptr};
  const EncoderOutput output = encoder.forward(input);
  for (int64_t b = 0; b < 2; ++b) {
    std::vector<double> expected(static_cast<size_t>(d), 0.0);
    for (int64_t t = 0; t < lengths[b]; ++t) {
      for (int64_t i = 0; i < d; ++i) {
        expected[i] += output.last_hidden[(b * 5 + t) * d + i] / lengths[b];
      }
    }
    double norm = 0.0;
    for (const double value : expected) norm += value * value;
    norm = std::sqrt(norm);
    ASSERT_GT(norm, 0.1);

    std::vector<float> embedding(output.pooled.begin() + b * d,
                                 output.pooled.begin() + (b + 1) * d);
    normalize_embedding(embedding);
    double embedding_norm = 0.0;
    for (int64_t i = 0; i < d; ++i) {
      EXPECT_NEAR(embedding[i], expected[i] / norm, 1e-5) << "text " << b << " dimension " << i;
      embedding_norm += static_cast<double>(embedding[i]) * embedding[i];
    }
    EXPECT_NEAR(std::sqrt(embedding_norm), 1.0, 1e-6);
  }
}

TEST(NormalizeEmbedding, DividesByTheL2NormAndLeavesZeroAlone) {
  std::vector<float> embedding = {3.0f, -4.0f};
  normalize_embedding(embedding);
  EXPECT_FLOAT_EQ(embedding[0], 0.6f);
  EXPECT_FLOAT_EQ(embedding[1], -0.8f);
  std::vector<float> zero = {0.0f, 0.0f};
  normalize_embedding(zero);
  EXPECT_EQ(zero, std::vector<float>({0.0f, 0.0f}));
}

TEST_F(SentenceTransformersTest, UnsupportedPoolingModesAreRefused) {
  write_standard_modules("max_tokens", true);
  EXPECT_EQ(error_of(), file("1_Pooling/config.json") +
                            ": pooling_mode_max_tokens: max pooling is not supported (tinyenc "
                            "pools cls or mean tokens)");
  write_standard_modules("weightedmean_tokens", false);
  EXPECT_EQ(error_of(), file("1_Pooling/config.json") +
                            ": pooling_mode_weightedmean_tokens: weightedmean pooling is not "
                            "supported (tinyenc pools cls or mean tokens)");
  nlohmann::json both = pooling_config("mean_tokens");
  both["pooling_mode_cls_token"] = true;
  write_modules(modules(true).dump(), both.dump());
  EXPECT_EQ(error_of(), file("1_Pooling/config.json") +
                            ": pooling_mode_mean_tokens: true as well as pooling_mode_cls_token: "
                            "concatenated poolings are not supported");
  nlohmann::json none = pooling_config("mean_tokens");
  none["pooling_mode_mean_tokens"] = false;
  write_modules(modules(true).dump(), none.dump());
  EXPECT_EQ(error_of(), file("1_Pooling/config.json") +
                            ": pooling_mode_mean_tokens: no pooling_mode_* is true (expected "
                            "pooling_mode_cls_token or this)");
  nlohmann::json future = pooling_config("mean_tokens");
  future["pooling_mode_median_tokens"] = false;
  write_modules(modules(true).dump(), future.dump());
  EXPECT_EQ(error_of(), file("1_Pooling/config.json") +
                            ": pooling_mode_median_tokens: unknown key (tinyenc knows "
                            "sentence-transformers' Pooling keys)");
}

TEST_F(SentenceTransformersTest, BadFilesNameTheFileAndField) {
  write_modules(modules(true).dump(), pooling_config("mean_tokens", 384).dump());
  EXPECT_EQ(error_of(), file("1_Pooling/config.json") +
                            ": word_embedding_dimension: 384 differs from the model's d_model 64 "
                            "(config.json)");
  write_modules(modules(true).dump(), "{\"word_embedding_dimension\": 64,");
  EXPECT_TRUE(error_of().starts_with(file("1_Pooling/config.json") + ": not valid JSON: "))
      << error_of();
  nlohmann::json bad_flag = pooling_config("mean_tokens");
  bad_flag["pooling_mode_cls_token"] = "no";
  write_modules(modules(true).dump(), bad_flag.dump());
  EXPECT_EQ(error_of(),
            file("1_Pooling/config.json") + ": pooling_mode_cls_token: must be true or false");

  write_modules("[{\"type\": 1}", pooling_config("mean_tokens").dump());
  EXPECT_TRUE(error_of().starts_with(file("modules.json") + ": not valid JSON: ")) << error_of();
  write_modules("{}", pooling_config("mean_tokens").dump());
  EXPECT_EQ(error_of(), file("modules.json") + ": must be a JSON array of modules");
  nlohmann::json dense = modules(true);
  dense[2]["type"] = "sentence_transformers.models.Dense";
  write_modules(dense.dump(), pooling_config("mean_tokens").dump());
  EXPECT_EQ(error_of(), file("modules.json") +
                            ": [2].type: 'sentence_transformers.models.Dense' is not supported "
                            "here (tinyenc runs sentence_transformers.models.Transformer, Pooling "
                            "and Normalize, in this order)");
  nlohmann::json no_pooling = modules(false);
  no_pooling.erase(1);
  write_modules(no_pooling.dump(), pooling_config("mean_tokens").dump());
  EXPECT_EQ(error_of(), file("modules.json") + ": no sentence_transformers.models.Pooling module");
  nlohmann::json escaping = modules(false);
  escaping[1]["path"] = "../elsewhere";
  write_modules(escaping.dump(), pooling_config("mean_tokens").dump());
  EXPECT_EQ(error_of(),
            file("modules.json") + ": [1].path: '../elsewhere' is not a subfolder of the model");

  write_standard_modules("mean_tokens", true);
  std::filesystem::remove(dir() / "1_Pooling" / "config.json");
  EXPECT_EQ(error_of(), file("1_Pooling/config.json") +
                            ": cannot open (modules.json lists it as the Pooling module)");
}

}  // namespace
}  // namespace tinyenc
