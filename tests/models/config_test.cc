// config.json of every family into ModelConfig, and one test per kind of bad config, each
// asserting that the message names the file and the field. Numbers compare exactly: parsing
// rounds a JSON number to float once, as the float literal it is compared with is rounded.
#include "models/config.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "tests/models/model_files.h"
#include "tests/support/temp_folder.h"
#include "tests/support/test_data.h"

namespace tinyenc {
namespace {

const std::string kFile = "m/config.json";

ModelConfig parse(const nlohmann::json& json) { return model_config_from_json(json, kFile); }

std::string error_of(const nlohmann::json& json) {
  try {
    parse(json);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

std::string text_error_of(const std::string& text) {
  try {
    parse_model_config(text, kFile);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

nlohmann::json bert() {
  testing::TestDims dims;
  dims.vocab = 100;
  dims.d_model = 32;
  dims.heads = 4;
  dims.max_positions = 64;
  return testing::bert_config(dims);
}

nlohmann::json tinyenc(nlohmann::json position_encoding) {
  return {{"model_type", "tinyenc"},
          {"vocab_size", 50},
          {"hidden_size", 32},
          {"num_attention_heads", 4},
          {"num_hidden_layers", 2},
          {"intermediate_size", 64},
          {"position_encoding", position_encoding}};
}

TEST(ModelConfig, BertModel) {
  const ModelConfig config = parse(bert());
  EXPECT_EQ(config.family, "bert");
  EXPECT_EQ(config.architecture, "BertModel");
  const EncoderConfig& e = config.encoder;
  EXPECT_EQ(e.vocab_size, 100);
  EXPECT_EQ(e.d_model, 32);
  EXPECT_EQ(e.heads, 4);
  EXPECT_EQ(e.layers, 2);
  EXPECT_EQ(e.ffn_dim, 12);
  EXPECT_EQ(e.type_vocab_size, 2);
  EXPECT_EQ(e.position_encoding.kind, PositionEncodingKind::kLearned);
  EXPECT_EQ(e.position_encoding.max_positions, 64);
  EXPECT_EQ(e.position_encoding.padding_idx, -1);
  EXPECT_FALSE(e.norm_first);
  EXPECT_TRUE(e.embedding_layer_norm);
  EXPECT_FALSE(e.final_layer_norm);
  EXPECT_EQ(e.layer_norm_eps, 1e-12f);
  EXPECT_EQ(e.activation, Activation::kGeluErf);
  EXPECT_EQ(e.pooling, Pooling::kCls);
  EXPECT_FALSE(e.has_pooler);  // decided by the weights
  EXPECT_EQ(e.num_labels, 0);
  EXPECT_TRUE(config.labels.empty());
  EXPECT_EQ(config.pad_token_id, 0);
  EXPECT_FALSE(config.cls_token_id);
  EXPECT_EQ(config.max_position_embeddings, 64);
  EXPECT_EQ(config.max_sequence_length, 64);
}

TEST(ModelConfig, BertDefaultsFromBertConfig) {
  nlohmann::json json = bert();
  for (const char* key : {"type_vocab_size", "hidden_act", "layer_norm_eps",
                          "max_position_embeddings", "pad_token_id", "architectures"}) {
    json.erase(key);
  }
  const ModelConfig config = parse(json);
  EXPECT_EQ(config.encoder.type_vocab_size, 2);
  EXPECT_EQ(config.encoder.activation, Activation::kGeluErf);
  EXPECT_EQ(config.encoder.position_encoding.max_positions, 512);
  EXPECT_FALSE(config.pad_token_id);
  EXPECT_EQ(config.architecture, "");
}

TEST(ModelConfig, BertSequenceClassifierLabelsInIdOrder) {
  nlohmann::json json = bert();
  json["architectures"] = {"BertForSequenceClassification"};
  json["id2label"] = {{"2", "neutral"}, {"0", "negative"}, {"1", "positive"}};
  json["label2id"] = {{"negative", 0}};  // not read
  const ModelConfig config = parse(json);
  EXPECT_EQ(config.labels, (std::vector<std::string>{"negative", "positive", "neutral"}));
  EXPECT_EQ(config.encoder.num_labels, 3);
  EXPECT_EQ(config.encoder.pooling, Pooling::kPooler);

  json.erase("id2label");
  EXPECT_EQ(parse(json).labels, (std::vector<std::string>{"LABEL_0", "LABEL_1"}));
  json["num_labels"] = 3;
  EXPECT_EQ(parse(json).labels.size(), 3u);
}

TEST(ModelConfig, BaseModelIgnoresDefaultLabels) {
  nlohmann::json json = bert();
  json["id2label"] = {{"0", "LABEL_0"}, {"1", "LABEL_1"}};
  EXPECT_TRUE(parse(json).labels.empty());
  EXPECT_EQ(parse(json).encoder.num_labels, 0);
}

TEST(ModelConfig, Activations) {
  nlohmann::json json = bert();
  const std::pair<const char*, Activation> cases[] = {{"gelu", Activation::kGeluErf},
                                                      {"gelu_new", Activation::kGeluTanh},
                                                      {"gelu_pytorch_tanh", Activation::kGeluTanh},
                                                      {"gelu_fast", Activation::kGeluTanh},
                                                      {"relu", Activation::kRelu}};
  for (const auto& [name, activation] : cases) {
    json["hidden_act"] = name;
    EXPECT_EQ(parse(json).encoder.activation, activation) << name;
  }
  json["hidden_act"] = "swish";
  EXPECT_EQ(error_of(json),
            "m/config.json: hidden_act: unsupported activation 'swish' (expected "
            "gelu, gelu_new, gelu_pytorch_tanh, gelu_fast or relu)");
}

TEST(ModelConfig, RobertaOffsetsPositionsByPaddingIdx) {
  nlohmann::json json = bert();
  json["model_type"] = "roberta";
  json["architectures"] = {"RobertaModel"};
  json["max_position_embeddings"] = 66;
  json["type_vocab_size"] = 1;
  json["pad_token_id"] = 1;
  json["bos_token_id"] = 0;
  json["eos_token_id"] = 2;
  const ModelConfig config = parse(json);
  EXPECT_EQ(config.family, "roberta");
  EXPECT_EQ(config.encoder.position_encoding.kind, PositionEncodingKind::kLearned);
  EXPECT_EQ(config.encoder.position_encoding.padding_idx, 1);
  EXPECT_EQ(config.encoder.position_encoding.max_positions, 66);
  EXPECT_EQ(config.max_sequence_length, 64);  // 66 - (padding_idx + 1), as 514 gives 512
  EXPECT_EQ(config.cls_token_id, 0);
  EXPECT_EQ(config.sep_token_id, 2);

  json.erase("pad_token_id");  // RobertaConfig's default is 1
  EXPECT_EQ(parse(json).encoder.position_encoding.padding_idx, 1);
  json["model_type"] = "xlm-roberta";
  EXPECT_EQ(parse(json).family, "xlm-roberta");

  json["max_position_embeddings"] = 2;
  EXPECT_EQ(error_of(json),
            "m/config.json: max_position_embeddings: 2 leaves no positions after padding_idx 1 "
            "(pad_token_id)");
}

TEST(ModelConfig, DistilBertKeys) {
  const nlohmann::json json = {{"model_type", "distilbert"},
                               {"architectures", {"DistilBertModel"}},
                               {"vocab_size", 30},
                               {"dim", 16},
                               {"n_heads", 4},
                               {"n_layers", 3},
                               {"hidden_dim", 40},
                               {"activation", "gelu"},
                               {"max_position_embeddings", 20},
                               {"sinusoidal_pos_embds", false}};
  const ModelConfig config = parse(json);
  EXPECT_EQ(config.family, "distilbert");
  EXPECT_EQ(config.encoder.d_model, 16);
  EXPECT_EQ(config.encoder.heads, 4);
  EXPECT_EQ(config.encoder.layers, 3);
  EXPECT_EQ(config.encoder.ffn_dim, 40);
  EXPECT_EQ(config.encoder.type_vocab_size, 0);
  EXPECT_EQ(config.encoder.layer_norm_eps, 1e-12f);
  EXPECT_EQ(config.encoder.position_encoding.max_positions, 20);

  nlohmann::json odd = json;
  odd["n_heads"] = 3;
  EXPECT_EQ(error_of(odd), "m/config.json: dim: 16 is not divisible by n_heads 3");
  nlohmann::json classifier = json;
  classifier["architectures"] = {"DistilBertForSequenceClassification"};
  EXPECT_EQ(error_of(classifier),
            "m/config.json: architectures: 'DistilBertForSequenceClassification' is not supported: "
            "its head (pre_classifier, ReLU, classifier) is not the engine's pooler (tanh) and "
            "classifier; DistilBertModel is");
}

TEST(ModelConfig, RoFormerRotatesInterleavedPairsOfTheWholeHead) {
  nlohmann::json json = bert();
  json["model_type"] = "roformer";
  json["architectures"] = {"RoFormerModel"};
  json["embedding_size"] = 32;
  json["rotary_value"] = false;
  const ModelConfig config = parse(json);
  EXPECT_EQ(config.family, "roformer");
  const PositionEncodingConfig& pe = config.encoder.position_encoding;
  EXPECT_EQ(pe.kind, PositionEncodingKind::kRope);
  EXPECT_EQ(pe.rope.pairing, RopePairing::kInterleaved);
  EXPECT_EQ(pe.rope.theta, 10000.0);
  EXPECT_EQ(config.encoder.rotary_dim(), 8);
  EXPECT_EQ(config.encoder.type_vocab_size, 2);
  EXPECT_EQ(config.max_sequence_length, 64);

  nlohmann::json projected = json;
  projected["embedding_size"] = 16;
  EXPECT_EQ(error_of(projected),
            "m/config.json: embedding_size: 16 differs from hidden_size 32 (the embeddings "
            "projection is not supported)");
  nlohmann::json rotated_values = json;
  rotated_values["rotary_value"] = true;
  EXPECT_EQ(error_of(rotated_values),
            "m/config.json: rotary_value: true (rotating the values too) is not supported");
}

TEST(ModelConfig, TinyencKeys) {
  nlohmann::json json = tinyenc({{"kind", "rope"}, {"pairing", "interleaved"}, {"rotary_dim", 4}});
  json["pooling"] = "mean";
  json["norm_first"] = true;
  json["embedding_layer_norm"] = false;
  json["hidden_act"] = "relu";
  json["layer_norm_eps"] = 1e-5;
  json["type_vocab_size"] = 3;
  json["id2label"] = {{"0", "a"}, {"1", "b"}};
  json["max_position_embeddings"] = 128;
  const ModelConfig config = parse(json);
  const EncoderConfig& e = config.encoder;
  EXPECT_EQ(config.family, "tinyenc");
  EXPECT_EQ(e.position_encoding.kind, PositionEncodingKind::kRope);
  EXPECT_EQ(e.position_encoding.rope.rotary_dim, 4);
  EXPECT_EQ(e.pooling, Pooling::kMean);
  EXPECT_TRUE(e.norm_first);
  EXPECT_TRUE(e.final_layer_norm);
  EXPECT_FALSE(e.embedding_layer_norm);
  EXPECT_EQ(e.activation, Activation::kRelu);
  EXPECT_EQ(e.layer_norm_eps, 1e-5f);
  EXPECT_EQ(e.type_vocab_size, 3);
  EXPECT_EQ(config.labels, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(e.num_labels, 2);
  EXPECT_EQ(config.max_sequence_length, 128);

  const ModelConfig defaults = parse(tinyenc({{"kind", "alibi"}}));
  EXPECT_EQ(defaults.encoder.type_vocab_size, 0);
  EXPECT_EQ(defaults.encoder.pooling, Pooling::kCls);
  EXPECT_FALSE(defaults.encoder.norm_first);
  EXPECT_TRUE(defaults.encoder.embedding_layer_norm);
  EXPECT_EQ(defaults.encoder.num_labels, 0);
  EXPECT_EQ(defaults.max_sequence_length, 0);  // ALiBi: no table, no limit
}

TEST(ModelConfig, TinyencLearnedTableRows) {
  nlohmann::json json = tinyenc({{"kind", "learned"}});
  json["max_position_embeddings"] = 40;
  EXPECT_EQ(parse(json).encoder.position_encoding.max_positions, 40);
  json["position_encoding"]["max_positions"] = 40;
  EXPECT_EQ(parse(json).encoder.position_encoding.max_positions, 40);
  json["position_encoding"]["padding_idx"] = 1;
  EXPECT_EQ(parse(json).encoder.position_encoding.padding_idx, 1);
  EXPECT_EQ(parse(json).max_sequence_length, 38);
  nlohmann::json short_table = tinyenc({{"kind", "learned"}, {"padding_idx", 3}});
  short_table["max_position_embeddings"] = 4;
  EXPECT_EQ(error_of(short_table),
            "m/config.json: max_position_embeddings: 4 leaves no positions after "
            "position_encoding.padding_idx 3");
  json["position_encoding"]["max_positions"] = 30;
  EXPECT_EQ(error_of(json),
            "m/config.json: max_position_embeddings: 40 differs from "
            "position_encoding.max_positions 30");
}

TEST(ModelConfig, TinyencRejectsUnknownKeys) {
  nlohmann::json json = tinyenc({{"kind", "none"}});
  json["norm_frist"] = true;
  EXPECT_EQ(error_of(json), "m/config.json: norm_frist: unknown key for model_type tinyenc");
  json.erase("norm_frist");
  json["transformers_version"] = "4.30.0";  // bookkeeping is fine
  EXPECT_NO_THROW(parse(json));
}

TEST(ModelConfig, TinyencPoolingValues) {
  nlohmann::json json = tinyenc({{"kind", "none"}});
  json["pooling"] = "max";
  EXPECT_EQ(error_of(json),
            "m/config.json: pooling: expected cls, mean, pooler or none, got 'max'");
  json["pooling"] = "pooler";
  EXPECT_EQ(parse(json).encoder.pooling, Pooling::kPooler);
  json["pooling"] = "none";
  json["id2label"] = {{"0", "a"}};
  EXPECT_EQ(error_of(json),
            "m/config.json: pooling: none leaves the classifier of id2label's 1 labels no input");
}

TEST(ModelConfig, FamilyFromArchitecturesWhenModelTypeIsMissing) {
  nlohmann::json json = bert();
  json.erase("model_type");
  json["architectures"] = {"XLMRobertaForSequenceClassification"};
  EXPECT_EQ(parse(json).family, "xlm-roberta");
  json["architectures"] = {"DistilBertModel"};
  EXPECT_EQ(error_of(json), "m/config.json: dim: missing");  // DistilBERT, not BERT
  json["architectures"] = {"GPT2Model"};
  EXPECT_EQ(error_of(json),
            "m/config.json: model_type: missing, and architectures 'GPT2Model' names no family "
            "tinyenc loads (bert, roberta, xlm-roberta, distilbert, roformer, mpnet, tinyenc)");
  json.erase("architectures");
  EXPECT_EQ(error_of(json),
            "m/config.json: model_type: missing (and no architectures to infer it from)");
}

TEST(ModelConfigErrors, MissingRequiredKeys) {
  for (const char* key : {"vocab_size", "hidden_size", "num_attention_heads", "num_hidden_layers",
                          "intermediate_size"}) {
    nlohmann::json json = bert();
    json.erase(key);
    EXPECT_EQ(error_of(json), std::string("m/config.json: ") + key + ": missing");
  }
  nlohmann::json json = tinyenc({{"kind", "none"}});
  json.erase("position_encoding");
  EXPECT_EQ(error_of(json), "m/config.json: position_encoding: missing");
}

TEST(ModelConfigErrors, WrongTypes) {
  nlohmann::json json = bert();
  json["hidden_size"] = "32";
  EXPECT_EQ(error_of(json), "m/config.json: hidden_size: must be an integer");
  json = bert();
  json["hidden_size"] = 32.5;
  EXPECT_EQ(error_of(json), "m/config.json: hidden_size: must be an integer");
  json = bert();
  json["num_hidden_layers"] = 0;
  EXPECT_EQ(error_of(json), "m/config.json: num_hidden_layers: must be >= 1");
  json = bert();
  json["vocab_size"] = 18446744073709551615u;
  EXPECT_EQ(error_of(json), "m/config.json: vocab_size: is too large");
  json = bert();
  json["layer_norm_eps"] = "small";
  EXPECT_EQ(error_of(json), "m/config.json: layer_norm_eps: must be a number");
  json = bert();
  json["layer_norm_eps"] = 0;
  EXPECT_EQ(error_of(json), "m/config.json: layer_norm_eps: must be > 0 (as a float32)");
  json = bert();
  json["architectures"] = "BertModel";
  EXPECT_EQ(error_of(json), "m/config.json: architectures: must be an array of class names");
  json = bert();
  json["model_type"] = 7;
  EXPECT_EQ(error_of(json), "m/config.json: model_type: must be a string");
  nlohmann::json tiny = tinyenc({{"kind", "none"}});
  tiny["norm_first"] = 1;
  EXPECT_EQ(error_of(tiny), "m/config.json: norm_first: must be true or false");
}

TEST(ModelConfigErrors, NotAJsonObject) {
  EXPECT_EQ(text_error_of("[1, 2]"), "m/config.json: must be a JSON object");
  EXPECT_EQ(text_error_of("{\"layer_norm_eps\": 1e999}"),
            "m/config.json: not valid JSON: number overflow parsing '1e999'");
  const std::string error = text_error_of("{\"hidden_size\": 32,");
  EXPECT_EQ(error.substr(0, 29), "m/config.json: not valid JSON");
  EXPECT_NE(error.find("syntax error"), std::string::npos) << error;
}

TEST(ModelConfigErrors, HiddenSizeNotDivisibleByHeads) {
  nlohmann::json json = bert();
  json["num_attention_heads"] = 5;
  EXPECT_EQ(error_of(json),
            "m/config.json: hidden_size: 32 is not divisible by num_attention_heads 5");
}

TEST(ModelConfigErrors, OddHeadDimWithRope) {
  nlohmann::json json = tinyenc({{"kind", "rope"}});
  json["hidden_size"] = 20;  // 4 heads of 5
  EXPECT_EQ(error_of(json),
            "m/config.json: hidden_size: head_dim 20 / 4 = 5 is odd, but RoPE rotates pairs of "
            "dimensions");
  json["position_encoding"]["rotary_dim"] = 4;  // a partial rotation of an even width is fine
  EXPECT_NO_THROW(parse(json));
  json["position_encoding"]["rotary_dim"] = 6;
  EXPECT_EQ(error_of(json),
            "m/config.json: position_encoding.rotary_dim: 6 exceeds head_dim 5 (hidden_size / "
            "num_attention_heads)");

  nlohmann::json roformer = bert();
  roformer["model_type"] = "roformer";
  roformer["hidden_size"] = 36;
  roformer["num_attention_heads"] = 4;
  EXPECT_EQ(error_of(roformer),
            "m/config.json: hidden_size: head_dim 36 / 4 = 9 is odd, but RoPE rotates pairs of "
            "dimensions");
}

TEST(ModelConfigErrors, OddWidthWithSinusoidal) {
  nlohmann::json json = tinyenc({{"kind", "sinusoidal"}});
  json["hidden_size"] = 33;
  json["num_attention_heads"] = 3;
  EXPECT_EQ(error_of(json),
            "m/config.json: hidden_size: 33 is odd, but the sinusoidal table pairs sin and cos "
            "dimensions");
}

TEST(ModelConfigErrors, UnknownPositionEncodingKind) {
  EXPECT_EQ(error_of(tinyenc({{"kind", "spiral"}})),
            "m/config.json: position_encoding.kind: unknown kind 'spiral' (expected none, "
            "sinusoidal, learned, rope, alibi, relative or learned_relative)");
  EXPECT_EQ(error_of(tinyenc("rope")), "m/config.json: position_encoding: must be a JSON object");
  nlohmann::json json = bert();
  json["position_embedding_type"] = "relative_key";
  EXPECT_EQ(error_of(json),
            "m/config.json: position_embedding_type: 'relative_key' is not supported (only "
            "absolute)");
}

TEST(ModelConfigErrors, UnknownFamily) {
  nlohmann::json json = bert();
  json["model_type"] = "modernbert";
  EXPECT_EQ(error_of(json),
            "m/config.json: model_type: unsupported model_type 'modernbert' (tinyenc loads bert, "
            "roberta, xlm-roberta, distilbert, roformer, mpnet, tinyenc)");
}

TEST(ModelConfigErrors, Id2LabelMustCountFromZero) {
  nlohmann::json json = bert();
  json["architectures"] = {"BertForSequenceClassification"};
  json["id2label"] = {{"0", "a"}, {"2", "c"}};
  EXPECT_EQ(error_of(json), "m/config.json: id2label: ids must run 0..1, but 1 is missing");
  json["id2label"] = {{"zero", "a"}};
  EXPECT_EQ(error_of(json), "m/config.json: id2label: key 'zero' is not a label id (0, 1, 2, ...)");
  json["id2label"] = {{"01", "a"}};
  EXPECT_EQ(error_of(json), "m/config.json: id2label: key '01' is not a label id (0, 1, 2, ...)");
  json["id2label"] = {{"0", 5}};
  EXPECT_EQ(error_of(json), "m/config.json: id2label: label of id 0 must be a string");
  json["id2label"] = {{"0", "a"}};
  json["num_labels"] = 2;
  EXPECT_EQ(error_of(json), "m/config.json: num_labels: 2 differs from the 1 labels of id2label");
}

TEST(ModelConfigErrors, ValuesFromTheFileStayOnOneLine) {
  nlohmann::json json = bert();
  json["model_type"] = "bert\nmodel";
  EXPECT_EQ(error_of(json),
            "m/config.json: model_type: unsupported model_type 'bert\\nmodel' (tinyenc loads "
            "bert, roberta, xlm-roberta, distilbert, roformer, mpnet, tinyenc)");
  nlohmann::json tiny = tinyenc({{"kind", "none"}});
  tiny["a\tb"] = 1;
  EXPECT_EQ(error_of(tiny), "m/config.json: a\\tb: unknown key for model_type tinyenc");
}

TEST(ModelConfigErrors, TokenIdsOutsideTheVocabulary) {
  nlohmann::json json = bert();
  json["pad_token_id"] = 100;
  EXPECT_EQ(error_of(json), "m/config.json: pad_token_id: 100 is not below vocab_size 100");
  json["pad_token_id"] = nullptr;  // transformers writes null for "none"
  EXPECT_FALSE(parse(json).pad_token_id);
  json["pad_token_id"] = -1;
  EXPECT_EQ(error_of(json), "m/config.json: pad_token_id: must be >= 0");
}

TEST(ModelConfig, ReadsAFolder) {
  const testing::TempFolder dir("tinyenc_model_config");
  testing::write_text(dir.path() / "config.json", bert().dump());
  EXPECT_EQ(read_model_config(dir.path()).family, "bert");

  const std::string file = (dir.path() / "config.json").string();
  testing::write_text(dir.path() / "config.json", "");
  try {
    read_model_config(dir.path());
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).substr(0, file.size() + 16), file + ": not valid JSON");
  }
  std::filesystem::remove(dir.path() / "config.json");
  try {
    read_model_config(dir.path());
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), file + ": cannot open (a model folder needs config.json)");
  }
}

// What a folder may hold in config.json's place: each refused with the path and the reason, never
// read nor reported as a raw std::filesystem error. /dev/null stands for every device: a test with
// /dev/zero would fill the memory should the check ever go. (FIFOs would hang the test instead:
// tests/tools/cli_hostile_files_test.cc runs those under a timeout.)
TEST(ModelConfig, ConfigThatIsNotARegularFile) {
  const testing::TempFolder dir("tinyenc_model_config");
  const std::filesystem::path path = dir.path() / "config.json";
  const auto read_error = [&] {
    try {
      read_model_config(dir.path());
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no std::runtime_error");
  };
  std::filesystem::create_symlink("/dev/null", path);
  EXPECT_EQ(read_error(), path.string() + ": not a regular file");
  std::filesystem::remove(path);
  std::filesystem::create_symlink("config.json", path);
  EXPECT_EQ(read_error(), path.string() + ": cannot open: Too many levels of symbolic links");
  std::filesystem::remove(path);
  std::filesystem::create_directory(path);
  EXPECT_EQ(read_error(), path.string() + ": is a folder, not a file");
}

TEST(ModelConfigErrors, RepeatedKeys) {
  // nlohmann keeps the last value, other readers the first: which one was meant is unknowable.
  EXPECT_EQ(text_error_of(R"({"model_type": "bert", "hidden_size": 32, "hidden_size": 64})"),
            "m/config.json: key 'hidden_size' appears more than once");
  EXPECT_EQ(text_error_of(R"({"model_type": "tinyenc",
                              "position_encoding": {"kind": "rope", "kind": "alibi"}})"),
            "m/config.json: position_encoding: key 'kind' appears more than once");
  EXPECT_EQ(text_error_of(R"({"id2label": {"0": "a", "1": "b", "0": "c"}})"),
            "m/config.json: id2label: key '0' appears more than once");
}

// The golden encoders the engine's parity tests run (tools/golden/encoder_goldens.py) are
// tinyenc-family folders: every one must parse.
TEST(ModelConfig, GoldenEncoderConfigsParse) {
  const std::filesystem::path root = testing::source_dir() / "tests/golden/encoders";
  // Committed with the source: a missing folder or file is a broken checkout, not a skip.
  ASSERT_TRUE(std::filesystem::is_directory(root)) << "missing committed goldens " << root;
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(root)) {
    ASSERT_TRUE(std::filesystem::exists(entry.path() / "config.json"))
        << "missing committed " << entry.path() / "config.json";
    EXPECT_NO_THROW(read_model_config(entry.path())) << entry.path();
    ++count;
  }
  EXPECT_GT(count, 0);
}

}  // namespace
}  // namespace tinyenc
