// DistilBERT (Sanh et al. 2019): a 6-layer BERT without token types or pooler, under its own
// names. config.json says dim, n_heads, n_layers, hidden_dim and activation; the LayerNorms use
// eps 1e-12 (fixed in transformers' modeling_distilbert.py). With sinusoidal_pos_embds the
// position table is still saved as a weight, so it loads like a learned one.
#include <nlohmann/json.hpp>

#include "models/model_family.h"

namespace tinyenc {
namespace {

void read_distilbert_config(JsonFields& fields, ModelConfig& config) {
  EncoderConfig& encoder = config.encoder;
  encoder.vocab_size = fields.required_integer("vocab_size", 1);
  encoder.d_model = fields.required_integer("dim", 1);
  encoder.heads = fields.required_integer("n_heads", 1);
  encoder.layers = fields.required_integer("n_layers", 1);
  encoder.ffn_dim = fields.required_integer("hidden_dim", 1);
  encoder.type_vocab_size = 0;
  encoder.layer_norm_eps = 1e-12f;
  encoder.activation = read_activation(fields, "activation");
  const int64_t max_positions = fields.integer("max_position_embeddings", 512, 1);
  config.max_position_embeddings = max_positions;
  encoder.position_encoding.kind = PositionEncodingKind::kLearned;
  encoder.position_encoding.max_positions = max_positions;

  if (is_sequence_classifier(config)) {
    fields.fail("architectures", quote_text(config.architecture) +
                                     " is not supported: its head (pre_classifier, ReLU, "
                                     "classifier) is not the engine's pooler (tanh) and "
                                     "classifier; DistilBertModel is");
  }
  read_id2label(fields);
  encoder.pooling = Pooling::kCls;
}

void bind_distilbert_weights(TensorBinder& tensors, ModelConfig& config, EncoderWeights& weights) {
  const EncoderConfig& encoder = config.encoder;
  const int64_t d = encoder.d_model;
  const std::string base =
      detect_prefix(tensors, "distilbert.", "embeddings.word_embeddings.weight");
  weights.token_embeddings =
      tensors.tensor(base + "embeddings.word_embeddings.weight", {encoder.vocab_size, d});
  weights.position_embeddings = tensors.tensor(base + "embeddings.position_embeddings.weight",
                                               {encoder.position_encoding.max_positions, d});
  weights.embedding_norm = tensors.norm(base + "embeddings.LayerNorm", d);
  tensors.ignore(base + "embeddings.position_ids");
  for (int64_t i = 0; i < encoder.layers; ++i) {
    const std::string name = base + "transformer.layer." + std::to_string(i);
    LayerWeights layer;
    layer.query = tensors.linear(name + ".attention.q_lin", d, d);
    layer.key = tensors.linear(name + ".attention.k_lin", d, d);
    layer.value = tensors.linear(name + ".attention.v_lin", d, d);
    layer.attention_output = tensors.linear(name + ".attention.out_lin", d, d);
    layer.attention_norm = tensors.norm(name + ".sa_layer_norm", d);
    layer.ffn_in = tensors.linear(name + ".ffn.lin1", encoder.ffn_dim, d);
    layer.ffn_out = tensors.linear(name + ".ffn.lin2", d, encoder.ffn_dim);
    layer.ffn_norm = tensors.norm(name + ".output_layer_norm", d);
    weights.layers.push_back(layer);
  }
}

}  // namespace

const ModelFamily kDistilBertFamily = {
    .model_type = "distilbert",
    .architecture_prefix = "DistilBert",
    .d_model_key = "dim",
    .heads_key = "n_heads",
    .reject_unknown_keys = false,
    .read_config = read_distilbert_config,
    .bind_weights = bind_distilbert_weights,
};

}  // namespace tinyenc
