// RoFormer (Su et al. 2021): BERT's layout with rotary position embeddings instead of a learned
// table. transformers rotates pairs (2i, 2i+1) of every head's dimensions with theta 10000
// (RoFormerSelfAttention.apply_rotary_position_embeddings), and keeps the sinusoidal table it
// rotates by as a weight, embed_positions, which tinyenc recomputes instead.
#include <nlohmann/json.hpp>

#include "models/model_family.h"

namespace tinyenc {
namespace {

void read_roformer_config(JsonFields& fields, ModelConfig& config) {
  EncoderConfig& encoder = config.encoder;
  encoder.vocab_size = fields.required_integer("vocab_size", 1);
  encoder.d_model = fields.required_integer("hidden_size", 1);
  encoder.heads = fields.required_integer("num_attention_heads", 1);
  encoder.layers = fields.required_integer("num_hidden_layers", 1);
  encoder.ffn_dim = fields.required_integer("intermediate_size", 1);
  encoder.type_vocab_size = fields.integer("type_vocab_size", 2, 0);
  encoder.layer_norm_eps = read_layer_norm_eps(fields, 1e-12);
  encoder.activation = read_activation(fields, "hidden_act");
  config.max_position_embeddings = fields.integer("max_position_embeddings", 1536, 1);

  // A smaller embedding_size adds a projection (embeddings_project) the engine does not have.
  const int64_t embedding_size = fields.integer("embedding_size", encoder.d_model, 1);
  if (embedding_size != encoder.d_model) {
    fields.fail("embedding_size", std::to_string(embedding_size) + " differs from hidden_size " +
                                      std::to_string(encoder.d_model) +
                                      " (the embeddings projection is not supported)");
  }
  if (fields.boolean("rotary_value", false)) {
    fields.fail("rotary_value", "true (rotating the values too) is not supported");
  }
  encoder.position_encoding.kind = PositionEncodingKind::kRope;
  encoder.position_encoding.rope.pairing = RopePairing::kInterleaved;
  encoder.position_encoding.rope.theta = 10000.0;
  encoder.position_encoding.rope.rotary_dim = 0;  // the whole head

  if (is_sequence_classifier(config)) {
    // RoFormerClassificationHead applies hidden_act, not the pooler's tanh.
    fields.fail("architectures", quote_text(config.architecture) +
                                     " is not supported: its head (dense, hidden_act, out_proj) "
                                     "is not the engine's pooler (tanh) and classifier");
  }
  read_id2label(fields);
  encoder.pooling = Pooling::kCls;
}

void bind_roformer_weights(TensorBinder& tensors, ModelConfig& config, EncoderWeights& weights) {
  const EncoderConfig& encoder = config.encoder;
  const int64_t d = encoder.d_model;
  const std::string base = detect_prefix(tensors, "roformer.", "embeddings.word_embeddings.weight");
  weights.token_embeddings =
      tensors.tensor(base + "embeddings.word_embeddings.weight", {encoder.vocab_size, d});
  if (encoder.type_vocab_size > 0) {
    weights.token_type_embeddings = tensors.tensor(base + "embeddings.token_type_embeddings.weight",
                                                   {encoder.type_vocab_size, d});
  }
  weights.embedding_norm = tensors.norm(base + "embeddings.LayerNorm", d);
  tensors.ignore(base + "embeddings.embed_positions.weight");
  tensors.ignore(base + "encoder.embed_positions.weight");
  tensors.ignore(base + "embeddings.position_ids");
  tensors.ignore(base + "embeddings.token_type_ids");
  for (int64_t i = 0; i < encoder.layers; ++i) {
    weights.layers.push_back(
        bind_bert_layer(tensors, base + "encoder.layer." + std::to_string(i), encoder));
  }
  bind_optional_pooler(tensors, base + "pooler.dense", config, weights);
}

}  // namespace

const ModelFamily kRoFormerFamily = {
    .model_type = "roformer",
    .architecture_prefix = "RoFormer",
    .d_model_key = "hidden_size",
    .heads_key = "num_attention_heads",
    .reject_unknown_keys = false,
    .read_config = read_roformer_config,
    .bind_weights = bind_roformer_weights,
};

}  // namespace tinyenc
