#include "models/bert_common.h"

#include "engine/io/quoted.h"
#include "models/model_family.h"

namespace tinyenc {
namespace {

LayerWeights bind_layer(TensorBinder& tensors, const std::string& name,
                        const LayerTensorNames& names, const EncoderConfig& encoder) {
  const int64_t d = encoder.d_model;
  const auto tensor = [&](std::string_view suffix) { return name + "." + std::string(suffix); };
  LayerWeights layer;
  layer.query = tensors.linear(tensor(names.query), d, d);
  layer.key = tensors.linear(tensor(names.key), d, d);
  layer.value = tensors.linear(tensor(names.value), d, d);
  layer.attention_output = tensors.linear(tensor(names.attention_output), d, d);
  layer.attention_norm = tensors.norm(tensor(names.attention_norm), d);
  layer.ffn_in = tensors.linear(tensor(names.ffn_in), encoder.ffn_dim, d);
  layer.ffn_out = tensors.linear(tensor(names.ffn_out), d, encoder.ffn_dim);
  layer.ffn_norm = tensors.norm(tensor(names.ffn_norm), d);
  return layer;
}

}  // namespace

void read_encoder_sizes(JsonField& fields, EncoderConfig& encoder, const EncoderSizeKeys& keys) {
  encoder.vocab_size = fields.required_integer("vocab_size", 1);
  encoder.d_model = fields.required_integer(keys.d_model, 1);
  encoder.heads = fields.required_integer(keys.heads, 1);
  encoder.layers = fields.required_integer(keys.layers, 1);
  encoder.ffn_dim = fields.required_integer(keys.ffn_dim, 1);
  encoder.activation = read_activation(fields, keys.activation);
}

void read_bert_sizes(JsonField& fields, EncoderConfig& encoder, int64_t default_type_vocab_size) {
  read_encoder_sizes(fields, encoder);
  encoder.type_vocab_size = fields.integer("type_vocab_size", default_type_vocab_size, 0);
  encoder.layer_norm_eps = read_layer_norm_eps(fields, 1e-12);
}

void read_learned_positions(JsonField& fields, ModelConfig& config) {
  const int64_t max_positions = fields.integer("max_position_embeddings", 512, 1);
  config.max_position_embeddings = max_positions;
  config.encoder.position_encoding.kind = PositionEncodingKind::kLearned;
  config.encoder.position_encoding.max_positions = max_positions;
}

void read_cls_output(JsonField& fields, ModelConfig& config, std::string_view head,
                     std::string_view base_model) {
  if (is_sequence_classifier(config)) {
    fields.fail("architectures", in_quotes(config.architecture) + " is not supported: its head (" +
                                     std::string(head) +
                                     ") is not the engine's pooler (tanh) and classifier; " +
                                     std::string(base_model) + " is");
  }
  read_id2label(fields);
  config.encoder.pooling = Pooling::kCls;
}

std::string bind_bert_encoder(TensorBinder& tensors, const BertTensorLayout& layout,
                              const EncoderConfig& encoder, EncoderWeights& weights) {
  const int64_t d = encoder.d_model;
  const std::string base =
      detect_prefix(tensors, layout.task_prefix, "embeddings.word_embeddings.weight");
  weights.token_embeddings =
      tensors.embedding(base + "embeddings.word_embeddings.weight", {encoder.vocab_size, d});
  if (has_position_table(encoder.position_encoding.kind)) {
    weights.position_embeddings = tensors.embedding(base + "embeddings.position_embeddings.weight",
                                                    {encoder.position_encoding.max_positions, d});
  }
  if (encoder.type_vocab_size > 0) {
    weights.token_type_embeddings = tensors.embedding(
        base + "embeddings.token_type_embeddings.weight", {encoder.type_vocab_size, d});
  }
  if (encoder.embedding_layer_norm) {
    weights.embedding_norm = tensors.norm(base + "embeddings.LayerNorm", d);
  }
  for (int64_t i = 0; i < encoder.layers; ++i) {
    weights.layers.push_back(
        bind_layer(tensors, base + layout.layers + std::to_string(i), layout.layer, encoder));
  }
  return base;
}

void ignore_id_buffers(TensorBinder& tensors, const std::string& base) {
  tensors.ignore(base + "embeddings.position_ids");
  tensors.ignore(base + "embeddings.token_type_ids");
}

void bind_classifier(TensorBinder& tensors, const std::string& name, const EncoderConfig& encoder,
                     EncoderWeights& weights) {
  if (encoder.num_labels > 0) {
    weights.classifier = tensors.linear(name, encoder.num_labels, encoder.d_model);
  }
}

void read_roberta_numbering(JsonField& fields, ModelConfig& config) {
  PositionEncodingConfig& position_encoding = config.encoder.position_encoding;
  position_encoding.padding_idx = config.pad_token_id.value_or(1);
  if (position_encoding.padding_idx + 1 >= position_encoding.max_positions) {
    fields.fail("max_position_embeddings", std::to_string(position_encoding.max_positions) +
                                               " leaves no positions after padding_idx " +
                                               std::to_string(position_encoding.padding_idx) +
                                               " (pad_token_id)");
  }
  if (!config.cls_token_id) config.cls_token_id = read_token_id(fields, "bos_token_id");
  if (!config.sep_token_id) config.sep_token_id = read_token_id(fields, "eos_token_id");
}

}  // namespace tinyenc
