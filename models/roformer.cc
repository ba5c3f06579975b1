// RoFormer (Su et al. 2021): BERT's layout with rotary position embeddings instead of a learned
// table. transformers rotates pairs (2i, 2i+1) of every head's dimensions with theta 10000
// (RoFormerSelfAttention.apply_rotary_position_embeddings), and keeps the sinusoidal table it
// rotates by as a weight, embed_positions, which tinyenc recomputes instead.
#include <nlohmann/json.hpp>

#include "models/bert_common.h"
#include "models/model_family.h"

namespace tinyenc {
namespace {

void read_roformer_config(JsonField& fields, ModelConfig& config) {
  EncoderConfig& encoder = config.encoder;
  read_bert_sizes(fields, encoder, 2);
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
  // RoFormerClassificationHead applies hidden_act, not the pooler's tanh.
  read_cls_output(fields, config, "dense, hidden_act, out_proj", "RoFormerModel");
}

void bind_roformer_weights(TensorBinder& tensors, ModelConfig& config, EncoderWeights& weights) {
  const std::string base =
      bind_bert_encoder(tensors, {.task_prefix = "roformer."}, config.encoder, weights);
  ignore_id_buffers(tensors, base);
  tensors.ignore(base + "embeddings.embed_positions.weight");
  tensors.ignore(base + "encoder.embed_positions.weight");
  bind_optional_pooler(tensors, base + "pooler.dense", config, weights);
}

}  // namespace

const ModelFamily kRoFormerFamily = {
    .model_type = "roformer",
    .architecture_prefix = "RoFormer",
    .read_config = read_roformer_config,
    .bind_weights = bind_roformer_weights,
};

}  // namespace tinyenc
