// MPNet (Song et al. 2020): BERT's post-LN layers under other tensor names (attention.attn.q/k/v/o,
// attention.LayerNorm), no token types, RoBERTa's position numbering from padding_idx + 1 and a
// bucketed relative bias shared by the layers (encoder.relative_attention_bias): the
// learned_relative position encoding. transformers' MPNetAttention fixes max_distance at 128.
#include <nlohmann/json.hpp>

#include "models/bert_common.h"
#include "models/model_family.h"

namespace tinyenc {
namespace {

void read_mpnet_config(JsonField& fields, ModelConfig& config) {
  EncoderConfig& encoder = config.encoder;
  read_bert_sizes(fields, encoder, 0);
  read_learned_positions(fields, config);
  PositionEncodingConfig& position_encoding = encoder.position_encoding;
  position_encoding.kind = PositionEncodingKind::kLearnedRelative;
  position_encoding.relative.num_buckets = fields.integer("relative_attention_num_buckets", 32, 4);
  position_encoding.relative.max_distance = 128;
  read_roberta_numbering(fields, config);
  // MPNetClassificationHead applies tanh between dense and out_proj with its own names.
  read_cls_output(fields, config, "dense, tanh, out_proj", "MPNetModel");
}

void bind_mpnet_weights(TensorBinder& tensors, ModelConfig& config, EncoderWeights& weights) {
  const BertTensorLayout layout = {
      .task_prefix = "mpnet.",
      .layer = {.query = "attention.attn.q",
                .key = "attention.attn.k",
                .value = "attention.attn.v",
                .attention_output = "attention.attn.o",
                .attention_norm = "attention.LayerNorm"},
  };
  const EncoderConfig& encoder = config.encoder;
  const std::string base = bind_bert_encoder(tensors, layout, encoder, weights);
  ignore_id_buffers(tensors, base);
  weights.relative_bias =
      tensors.tensor(base + "encoder.relative_attention_bias.weight",
                     {encoder.position_encoding.relative.num_buckets, encoder.heads});
  bind_optional_pooler(tensors, base + "pooler.dense", config, weights);
}

}  // namespace

const ModelFamily kMpnetFamily = {
    .model_type = "mpnet",
    .architecture_prefix = "MPNet",
    .read_config = read_mpnet_config,
    .bind_weights = bind_mpnet_weights,
};

}  // namespace tinyenc
