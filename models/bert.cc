// BERT and its descendants with the same weight layout: RoBERTa and XLM-RoBERTa.
//
// Hugging Face checkpoints name the base model's tensors "embeddings.*", "encoder.layer.N.*" and
// "pooler.dense.*", with a "bert." / "roberta." prefix when saved from a task model
// (BertForSequenceClassification). Their config.json keys are those of BertConfig.
#include <nlohmann/json.hpp>

#include "models/model_family.h"

namespace tinyenc {
namespace {

void read_bert_style_config(JsonFields& fields, ModelConfig& config) {
  EncoderConfig& encoder = config.encoder;
  encoder.vocab_size = fields.required_integer("vocab_size", 1);
  encoder.d_model = fields.required_integer("hidden_size", 1);
  encoder.heads = fields.required_integer("num_attention_heads", 1);
  encoder.layers = fields.required_integer("num_hidden_layers", 1);
  encoder.ffn_dim = fields.required_integer("intermediate_size", 1);
  encoder.type_vocab_size = fields.integer("type_vocab_size", 2, 0);
  encoder.layer_norm_eps = read_layer_norm_eps(fields, 1e-12);
  encoder.activation = read_activation(fields, "hidden_act");

  // "relative_key" and "relative_key_query" (Shaw et al., Huang et al.) are other models.
  const std::string position_type = fields.text("position_embedding_type", "absolute");
  if (position_type != "absolute") {
    fields.fail("position_embedding_type",
                quote_text(position_type) + " is not supported (only absolute)");
  }
  const int64_t max_positions = fields.integer("max_position_embeddings", 512, 1);
  config.max_position_embeddings = max_positions;
  encoder.position_encoding.kind = PositionEncodingKind::kLearned;
  encoder.position_encoding.max_positions = max_positions;

  if (is_sequence_classifier(config)) {
    // The classification head reads the pooler's tanh(W h_[CLS] + b).
    config.labels = read_classifier_labels(fields);
    encoder.pooling = Pooling::kPooler;
  } else {
    read_id2label(fields);  // checked, but a base model's default labels mean nothing
    encoder.pooling = Pooling::kCls;
  }
  encoder.num_labels = static_cast<int64_t>(config.labels.size());
}

void read_roberta_config(JsonFields& fields, ModelConfig& config) {
  read_bert_style_config(fields, config);
  // RoBERTa numbers positions from padding_idx + 1 and gives pads padding_idx, with
  // padding_idx = pad_token_id (fairseq's make_positions).
  PositionEncodingConfig& position_encoding = config.encoder.position_encoding;
  position_encoding.padding_idx = config.pad_token_id.value_or(1);
  if (position_encoding.padding_idx + 1 >= position_encoding.max_positions) {
    fields.fail("max_position_embeddings", std::to_string(position_encoding.max_positions) +
                                               " leaves no positions after padding_idx " +
                                               std::to_string(position_encoding.padding_idx) +
                                               " (pad_token_id)");
  }
  // RoBERTa's <s> and </s> play BERT's [CLS] and [SEP].
  if (!config.cls_token_id) config.cls_token_id = read_token_id(fields, "bos_token_id");
  if (!config.sep_token_id) config.sep_token_id = read_token_id(fields, "eos_token_id");
}

// The embeddings and layers; `base` is the detected prefix.
void bind_bert_style_encoder(TensorBinder& tensors, const std::string& base,
                             const EncoderConfig& encoder, EncoderWeights& weights) {
  const int64_t d = encoder.d_model;
  weights.token_embeddings =
      tensors.tensor(base + "embeddings.word_embeddings.weight", {encoder.vocab_size, d});
  weights.position_embeddings = tensors.tensor(base + "embeddings.position_embeddings.weight",
                                               {encoder.position_encoding.max_positions, d});
  if (encoder.type_vocab_size > 0) {
    weights.token_type_embeddings = tensors.tensor(base + "embeddings.token_type_embeddings.weight",
                                                   {encoder.type_vocab_size, d});
  }
  weights.embedding_norm = tensors.norm(base + "embeddings.LayerNorm", d);
  // Buffers some versions of transformers save: the engine makes its own ids.
  tensors.ignore(base + "embeddings.position_ids");
  tensors.ignore(base + "embeddings.token_type_ids");
  for (int64_t i = 0; i < encoder.layers; ++i) {
    weights.layers.push_back(
        bind_bert_layer(tensors, base + "encoder.layer." + std::to_string(i), encoder));
  }
}

void bind_bert_weights(TensorBinder& tensors, ModelConfig& config, EncoderWeights& weights) {
  const std::string base = detect_prefix(tensors, "bert.", "embeddings.word_embeddings.weight");
  bind_bert_style_encoder(tensors, base, config.encoder, weights);
  bind_optional_pooler(tensors, base + "pooler.dense", config, weights);
  if (config.encoder.num_labels > 0) {
    weights.classifier =
        tensors.linear("classifier", config.encoder.num_labels, config.encoder.d_model);
  }
}

void bind_roberta_weights(TensorBinder& tensors, ModelConfig& config, EncoderWeights& weights) {
  const std::string base = detect_prefix(tensors, "roberta.", "embeddings.word_embeddings.weight");
  bind_bert_style_encoder(tensors, base, config.encoder, weights);
  if (config.encoder.num_labels > 0) {
    // RobertaClassificationHead: out_proj(tanh(dense(h_<s>))), which is BERT's pooler followed
    // by its classifier under other names.
    bind_optional_pooler(tensors, "classifier.dense", config, weights);
    weights.classifier =
        tensors.linear("classifier.out_proj", config.encoder.num_labels, config.encoder.d_model);
  } else {
    bind_optional_pooler(tensors, base + "pooler.dense", config, weights);
  }
}

}  // namespace

const ModelFamily kBertFamily = {
    .model_type = "bert",
    .architecture_prefix = "Bert",
    .d_model_key = "hidden_size",
    .heads_key = "num_attention_heads",
    .reject_unknown_keys = false,
    .read_config = read_bert_style_config,
    .bind_weights = bind_bert_weights,
};

const ModelFamily kRobertaFamily = {
    .model_type = "roberta",
    .architecture_prefix = "Roberta",
    .d_model_key = "hidden_size",
    .heads_key = "num_attention_heads",
    .reject_unknown_keys = false,
    .read_config = read_roberta_config,
    .bind_weights = bind_roberta_weights,
};

// XLM-RoBERTa is RoBERTa with another vocabulary; transformers keeps the "roberta." prefix.
const ModelFamily kXlmRobertaFamily = {
    .model_type = "xlm-roberta",
    .architecture_prefix = "XLMRoberta",
    .d_model_key = "hidden_size",
    .heads_key = "num_attention_heads",
    .reject_unknown_keys = false,
    .read_config = read_roberta_config,
    .bind_weights = bind_roberta_weights,
};

}  // namespace tinyenc
