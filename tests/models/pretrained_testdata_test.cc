// Third-party model folders from the shared test data (see its README): a tiny random-weight
// BertModel, which must load completely, and a tiny ModernBERT, a family tinyenc does not run.
#include <gtest/gtest.h>

#include <bit>
#include <string>
#include <utility>
#include <vector>

#include "models/model.h"
#include "models/safetensors.h"
#include "tests/support/test_data.h"

namespace tinyenc {
namespace {

// BertModel naming, hidden 32, 1 layer, intermediate 128, vocab 256, 128 positions, 2 types.
const std::vector<std::pair<std::string, std::vector<int64_t>>> kTinyBertTensors = {
    {"embeddings.LayerNorm.bias", {32}},
    {"embeddings.LayerNorm.weight", {32}},
    {"embeddings.position_embeddings.weight", {128, 32}},
    {"embeddings.token_type_embeddings.weight", {2, 32}},
    {"embeddings.word_embeddings.weight", {256, 32}},
    {"encoder.layer.0.attention.output.LayerNorm.bias", {32}},
    {"encoder.layer.0.attention.output.LayerNorm.weight", {32}},
    {"encoder.layer.0.attention.output.dense.bias", {32}},
    {"encoder.layer.0.attention.output.dense.weight", {32, 32}},
    {"encoder.layer.0.attention.self.key.bias", {32}},
    {"encoder.layer.0.attention.self.key.weight", {32, 32}},
    {"encoder.layer.0.attention.self.query.bias", {32}},
    {"encoder.layer.0.attention.self.query.weight", {32, 32}},
    {"encoder.layer.0.attention.self.value.bias", {32}},
    {"encoder.layer.0.attention.self.value.weight", {32, 32}},
    {"encoder.layer.0.intermediate.dense.bias", {128}},
    {"encoder.layer.0.intermediate.dense.weight", {128, 32}},
    {"encoder.layer.0.output.LayerNorm.bias", {32}},
    {"encoder.layer.0.output.LayerNorm.weight", {32}},
    {"encoder.layer.0.output.dense.bias", {32}},
    {"encoder.layer.0.output.dense.weight", {32, 128}},
};

TEST(TinyBert, SafetensorsNamesAndShapes) {
  TINYENC_REQUIRE_TESTDATA(testdata);
  SafetensorsFile file(testdata / "models/tiny_bert/model.safetensors");
  ASSERT_EQ(file.tensors().size(), kTinyBertTensors.size());
  for (size_t i = 0; i < kTinyBertTensors.size(); ++i) {
    const TensorInfo& tensor = file.tensors()[i];
    EXPECT_EQ(tensor.name, kTinyBertTensors[i].first);
    EXPECT_EQ(tensor.shape, kTinyBertTensors[i].second) << tensor.name;
    EXPECT_EQ(tensor.dtype, DType::kF32) << tensor.name;
  }
  EXPECT_TRUE(file.metadata().empty());
}

TEST(TinyBert, LoadsEveryTensorOntoTheEncoder) {
  TINYENC_REQUIRE_TESTDATA(testdata);
  const LoadedModel model = load_model(testdata / "models/tiny_bert");
  EXPECT_TRUE(model.unused_tensors.empty());
  EXPECT_TRUE(model.ignored_tensors.empty());

  const ModelConfig& config = model.config;
  EXPECT_EQ(config.family, "bert");
  EXPECT_EQ(config.architecture, "BertModel");
  const EncoderConfig& e = config.encoder;
  EXPECT_EQ(e.vocab_size, 256);
  EXPECT_EQ(e.d_model, 32);
  EXPECT_EQ(e.heads, 2);
  EXPECT_EQ(e.layers, 1);
  EXPECT_EQ(e.ffn_dim, 128);
  EXPECT_EQ(e.type_vocab_size, 2);
  EXPECT_EQ(e.position_encoding.kind, PositionEncodingKind::kLearned);
  EXPECT_EQ(e.position_encoding.max_positions, 128);
  EXPECT_EQ(e.activation, Activation::kGeluErf);
  EXPECT_EQ(e.layer_norm_eps, 1e-12f);  // parsed and rounded to float once, like the literal
  EXPECT_EQ(e.pooling, Pooling::kCls);
  EXPECT_FALSE(e.has_pooler);  // this checkpoint carries no pooler
  EXPECT_EQ(e.num_labels, 0);
  EXPECT_EQ(config.pad_token_id, 0);
  EXPECT_EQ(config.max_sequence_length, 128);

  const EncoderWeights& w = model.weights;
  // The fixture's generator draws numpy.random.seed(42) randn * 0.02, word embeddings first:
  // 0.4967141530112327 * 0.02 as float32.
  EXPECT_EQ(std::bit_cast<uint32_t>(w.token_embeddings[0]), 0x3C22C367u);
  // Its LayerNorms are the identity: weight 1, bias 0.
  for (const NormWeights& norm :
       {w.embedding_norm, w.layers[0].attention_norm, w.layers[0].ffn_norm}) {
    for (int i = 0; i < 32; ++i) {
      EXPECT_EQ(norm.gamma[i], 1.0f);
      EXPECT_EQ(norm.beta[i], 0.0f);
    }
  }
  ASSERT_EQ(w.layers.size(), 1u);
  EXPECT_NE(w.position_embeddings, nullptr);
  EXPECT_NE(w.token_type_embeddings, nullptr);
  EXPECT_EQ(w.layers[0].ffn_in.out_features, 128);
  EXPECT_EQ(w.layers[0].ffn_out.in_features, 128);
  EXPECT_EQ(w.pooler.weight, nullptr);
}

TEST(TinyModernBert, IsAnUnsupportedFamily) {
  TINYENC_REQUIRE_TESTDATA(testdata);
  const std::filesystem::path dir = testdata / "models/tiny_modernbert";
  // Its weights are a valid safetensors file...
  EXPECT_EQ(SafetensorsFile(dir / "model.safetensors").tensors().size(), 9u);
  // ...of a model tinyenc does not run.
  try {
    load_model(dir);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              (dir / "config.json").string() +
                  ": model_type: unsupported model_type 'modernbert' (tinyenc loads bert, roberta, "
                  "xlm-roberta, distilbert, roformer, mpnet, tinyenc)");
  }
}

}  // namespace
}  // namespace tinyenc
