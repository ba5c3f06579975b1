// BERT and its descendants with the same weight layout: RoBERTa and XLM-RoBERTa.
//
// Hugging Face checkpoints name the base model's tensors "embeddings.*", "encoder.layer.N.*" and
// "pooler.dense.*", with a "bert." / "roberta." prefix when saved from a task model
// (BertForSequenceClassification). Their config.json keys are those of BertConfig.
#include <nlohmann/json.hpp>

#include "models/bert_common.h"
#include "models/model_family.h"
#include "tokenizer/tokenizer_file.h"

namespace tinyenc {
namespace {

void read_bert_config(JsonField& fields, ModelConfig& config) {
  EncoderConfig& encoder = config.encoder;
  read_bert_sizes(fields, encoder, 2);
  // "relative_key" and "relative_key_query" (Shaw et al., Huang et al.) are other models.
  const std::string position_type = fields.text("position_embedding_type", "absolute");
  if (position_type != "absolute") {
    fields.fail("position_embedding_type",
                in_quotes(position_type) + " is not supported (only absolute)");
  }
  read_learned_positions(fields, config);
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

void read_roberta_config(JsonField& fields, ModelConfig& config) {
  read_bert_config(fields, config);
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

void bind_bert_weights(TensorBinder& tensors, ModelConfig& config, EncoderWeights& weights) {
  const std::string base =
      bind_bert_encoder(tensors, {.task_prefix = "bert."}, config.encoder, weights);
  ignore_id_buffers(tensors, base);
  bind_optional_pooler(tensors, base + "pooler.dense", config, weights);
  bind_classifier(tensors, "classifier", config.encoder, weights);
}

void bind_roberta_weights(TensorBinder& tensors, ModelConfig& config, EncoderWeights& weights) {
  const std::string base =
      bind_bert_encoder(tensors, {.task_prefix = "roberta."}, config.encoder, weights);
  ignore_id_buffers(tensors, base);
  // RobertaClassificationHead: out_proj(tanh(dense(h_<s>))), which is BERT's pooler followed by
  // its classifier under other names.
  const bool classifier = config.encoder.num_labels > 0;
  bind_optional_pooler(tensors, classifier ? "classifier.dense" : base + "pooler.dense", config,
                       weights);
  bind_classifier(tensors, "classifier.out_proj", config.encoder, weights);
}

}  // namespace

const ModelFamily kBertFamily = {
    .model_type = "bert",
    .architecture_prefix = "Bert",
    .read_config = read_bert_config,
    .bind_weights = bind_bert_weights,
};

const ModelFamily kRobertaFamily = {
    .model_type = "roberta",
    .architecture_prefix = "Roberta",
    .read_config = read_roberta_config,
    .bind_weights = bind_roberta_weights,
};

// XLM-RoBERTa is RoBERTa with another vocabulary; transformers keeps the "roberta." prefix.
const ModelFamily kXlmRobertaFamily = {
    .model_type = "xlm-roberta",
    .architecture_prefix = "XLMRoberta",
    .read_config = read_roberta_config,
    .bind_weights = bind_roberta_weights,
};

}  // namespace tinyenc
