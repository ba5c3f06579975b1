// What BERT and the families built on it share, written once: BertConfig's sizes, a learned
// position table, a [CLS] output, the embeddings block and a stack of BERT-shaped layers. Each
// family's file states only where it differs: key names, tensor names, position encoding, head.
// Internal to models/.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/encoder_weights.h"
#include "engine/io/json_field.h"
#include "models/config.h"
#include "models/tensor_binder.h"

namespace tinyenc {

// The config.json keys of the encoder's sizes: BertConfig's, which DistilBERT renames.
struct EncoderSizeKeys {
  std::string d_model = "hidden_size";
  std::string heads = "num_attention_heads";
  std::string layers = "num_hidden_layers";
  std::string ffn_dim = "intermediate_size";
  std::string activation = "hidden_act";
};

// vocab_size, then d_model, heads, layers, ffn_dim and the activation under `keys`.
void read_encoder_sizes(JsonField& fields, EncoderConfig& encoder,
                        const EncoderSizeKeys& keys = {});

// BertConfig's: the sizes, type_vocab_size (0 for none) and layer_norm_eps (default 1e-12).
void read_bert_sizes(JsonField& fields, EncoderConfig& encoder, int64_t default_type_vocab_size);

// A learned table of max_position_embeddings rows (default 512, as BertConfig).
void read_learned_positions(JsonField& fields, ModelConfig& config);
// RoBERTa's numbering, which MPNet shares: positions from padding_idx + 1 with padding_idx =
// pad_token_id (fairseq's make_positions), and <s> / </s> playing BERT's [CLS] and [SEP].
void read_roberta_numbering(JsonField& fields, ModelConfig& config);

// A base model whose output is the [CLS] state. A *ForSequenceClassification is refused: its head
// (`head`, e.g. "dense, hidden_act, out_proj") is not the engine's pooler (tanh) and classifier,
// and `base_model` is what loads instead. id2label is checked, but a base model's default labels
// mean nothing.
void read_cls_output(JsonField& fields, ModelConfig& config, std::string_view head,
                     std::string_view base_model);

// One layer's tensors, below the layer's name.
struct LayerTensorNames {
  std::string_view query = "attention.self.query";
  std::string_view key = "attention.self.key";
  std::string_view value = "attention.self.value";
  std::string_view attention_output = "attention.output.dense";
  std::string_view attention_norm = "attention.output.LayerNorm";
  std::string_view ffn_in = "intermediate.dense";
  std::string_view ffn_out = "output.dense";
  std::string_view ffn_norm = "output.LayerNorm";
};

// Where a BERT-shaped checkpoint keeps its base model: embeddings.* and <layers>N.*, under
// `task_prefix` ("bert.") when saved from a task model such as BertForSequenceClassification.
struct BertTensorLayout {
  std::string task_prefix;
  std::string layers = "encoder.layer.";
  LayerTensorNames layer = {};
};

// Binds the embeddings (word; position when learned; token type when type_vocab_size > 0;
// LayerNorm when embedding_layer_norm) and the layers. Returns the prefix found: `task_prefix`
// or "".
std::string bind_bert_encoder(TensorBinder& tensors, const BertTensorLayout& layout,
                              const EncoderConfig& encoder, EncoderWeights& weights);

// Buffers some versions of transformers save with the embeddings: the engine makes its own ids.
void ignore_id_buffers(TensorBinder& tensors, const std::string& base);

// <name>.weight/bias [num_labels, d_model], when the configuration has labels.
void bind_classifier(TensorBinder& tensors, const std::string& name, const EncoderConfig& encoder,
                     EncoderWeights& weights);

}  // namespace tinyenc
