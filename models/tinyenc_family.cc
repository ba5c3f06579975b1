// tinyenc's own family: BERT's weight names (no prefix) and config keys, plus the choices the
// article's experiments vary:
//   "position_encoding": {"kind": ...}   models/position_encoding_config.h
//   "pooling": "cls" | "mean" | "pooler" | "none"                         (default cls)
//   "norm_first": bool    pre-LN layers and a final encoder.LayerNorm   (default false)
//   "embedding_layer_norm": bool   LayerNorm after the embedding sum   (default true)
//   "type_vocab_size": 0 for no token types                            (default 0)
// Relative position bias (T5) is one table shared by all layers,
// encoder.relative_attention_bias.weight [num_buckets, heads]. Unknown keys are errors.
#include <nlohmann/json.hpp>

#include "engine/io/quoted.h"
#include "models/bert_common.h"
#include "models/model_family.h"
#include "models/position_encoding_config.h"

namespace tinyenc {
namespace {

Pooling read_pooling(JsonField& fields) {
  const std::string name = fields.text("pooling", "cls");
  if (name == "cls") return Pooling::kCls;
  if (name == "mean") return Pooling::kMean;
  if (name == "pooler") return Pooling::kPooler;
  if (name == "none") return Pooling::kNone;
  fields.fail("pooling", "expected cls, mean, pooler or none, got " + in_quotes(name));
}

void read_tinyenc_config(JsonField& fields, ModelConfig& config) {
  EncoderConfig& encoder = config.encoder;
  read_bert_sizes(fields, encoder, 0);

  const nlohmann::json* position_encoding = fields.value_of("position_encoding");
  if (!position_encoding) fields.fail("position_encoding", "missing");
  encoder.position_encoding =
      parse_position_encoding_config(*position_encoding, fields.name_of("position_encoding"));
  const std::optional<int64_t> max_position_embeddings =
      fields.optional_integer("max_position_embeddings", 1);
  if (has_position_table(encoder.position_encoding.kind)) {
    // The table's rows may be given either way; both must agree.
    const bool explicit_rows = position_encoding->contains("max_positions");
    if (max_position_embeddings && !explicit_rows) {
      encoder.position_encoding.max_positions = *max_position_embeddings;
    } else if (max_position_embeddings &&
               *max_position_embeddings != encoder.position_encoding.max_positions) {
      fields.fail("max_position_embeddings",
                  std::to_string(*max_position_embeddings) +
                      " differs from position_encoding.max_positions " +
                      std::to_string(encoder.position_encoding.max_positions));
    }
    const int64_t padding_idx = encoder.position_encoding.padding_idx;
    if (padding_idx + 1 >= encoder.position_encoding.max_positions) {
      fields.fail("max_position_embeddings",
                  std::to_string(encoder.position_encoding.max_positions) +
                      " leaves no positions after position_encoding.padding_idx " +
                      std::to_string(padding_idx));
    }
    config.max_position_embeddings = encoder.position_encoding.max_positions;
  } else {
    config.max_position_embeddings = max_position_embeddings;
  }

  encoder.pooling = read_pooling(fields);
  encoder.norm_first = fields.boolean("norm_first", false);
  encoder.final_layer_norm = encoder.norm_first;  // pre-LN leaves the last residual un-normed
  encoder.embedding_layer_norm = fields.boolean("embedding_layer_norm", true);

  config.labels = read_id2label(fields).value_or(std::vector<std::string>{});
  encoder.num_labels = static_cast<int64_t>(config.labels.size());
  if (encoder.num_labels > 0 && encoder.pooling == Pooling::kNone) {
    fields.fail("pooling", "none leaves the classifier of id2label's " +
                               std::to_string(encoder.num_labels) + " labels no input");
  }

  // Bookkeeping keys transformers and training scripts write; they do not change the forward
  // pass.
  for (const char* key :
       {"architectures", "label2id", "transformers_version", "torch_dtype", "initializer_range",
        "hidden_dropout_prob", "attention_probs_dropout_prob"}) {
    fields.value_of(key);
  }
}

void bind_tinyenc_weights(TensorBinder& tensors, ModelConfig& config, EncoderWeights& weights) {
  const EncoderConfig& encoder = config.encoder;
  bind_bert_encoder(tensors, {}, encoder, weights);
  if (has_relative_bias_table(encoder.position_encoding.kind)) {
    weights.relative_bias =
        tensors.tensor("encoder.relative_attention_bias.weight",
                       {encoder.position_encoding.relative.num_buckets, encoder.heads});
  }
  if (encoder.final_layer_norm)
    weights.final_norm = tensors.norm("encoder.LayerNorm", encoder.d_model);
  bind_optional_pooler(tensors, "pooler.dense", config, weights);
  bind_classifier(tensors, "classifier", encoder, weights);
}

}  // namespace

const ModelFamily kTinyencFamily = {
    .model_type = "tinyenc",
    .architecture_prefix = "Tinyenc",
    .reject_unknown_keys = true,
    .read_config = read_tinyenc_config,
    .bind_weights = bind_tinyenc_weights,
};

}  // namespace tinyenc
