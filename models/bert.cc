// BERT and its descendants with the same weight layout: RoBERTa and XLM-RoBERTa.
//
// Hugging Face checkpoints name the base model's tensors "embeddings.*", "encoder.layer.N.*" and
// "pooler.dense.*", with a "bert." / "roberta." prefix when saved from a task model
// (BertForSequenceClassification). Their config.json keys are those of BertConfig.
#include <nlohmann/json.hpp>

#include "engine/io/quoted.h"
#include "models/bert_common.h"
#include "models/model_family.h"

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
  read_roberta_numbering(fields, config);
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
