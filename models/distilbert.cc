// DistilBERT (Sanh et al. 2019): a 6-layer BERT without token types or pooler, under its own
// names. config.json says dim, n_heads, n_layers, hidden_dim and activation; the LayerNorms use
// eps 1e-12 (fixed in transformers' modeling_distilbert.py). With sinusoidal_pos_embds the
// position table is still saved as a weight, so it loads like a learned one.
#include <nlohmann/json.hpp>

#include "models/bert_common.h"
#include "models/model_family.h"

namespace tinyenc {
namespace {

void read_distilbert_config(JsonField& fields, ModelConfig& config) {
  read_encoder_sizes(fields, config.encoder,
                     {.d_model = "dim",
                      .heads = "n_heads",
                      .layers = "n_layers",
                      .ffn_dim = "hidden_dim",
                      .activation = "activation"});
  config.encoder.type_vocab_size = 0;
  config.encoder.layer_norm_eps = 1e-12f;
  read_learned_positions(fields, config);
  read_cls_output(fields, config, "pre_classifier, ReLU, classifier", "DistilBertModel");
}

void bind_distilbert_weights(TensorBinder& tensors, ModelConfig& config, EncoderWeights& weights) {
  const BertTensorLayout layout = {.task_prefix = "distilbert.",
                                   .layers = "transformer.layer.",
                                   .layer = {.query = "attention.q_lin",
                                             .key = "attention.k_lin",
                                             .value = "attention.v_lin",
                                             .attention_output = "attention.out_lin",
                                             .attention_norm = "sa_layer_norm",
                                             .ffn_in = "ffn.lin1",
                                             .ffn_out = "ffn.lin2",
                                             .ffn_norm = "output_layer_norm"}};
  ignore_id_buffers(tensors, bind_bert_encoder(tensors, layout, config.encoder, weights));
}

}  // namespace

const ModelFamily kDistilBertFamily = {
    .model_type = "distilbert",
    .architecture_prefix = "DistilBert",
    .d_model_key = "dim",
    .heads_key = "n_heads",
    .read_config = read_distilbert_config,
    .bind_weights = bind_distilbert_weights,
};

}  // namespace tinyenc
