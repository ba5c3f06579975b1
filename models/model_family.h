// What one model family knows: the keys of its config.json and the names of its weights.
// Internal to models/: config.cc and model.cc dispatch on it; each family lives in its own file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/encoder_weights.h"
#include "engine/io/json_field.h"
#include "models/config.h"
#include "models/tensor_binder.h"

namespace tinyenc {

struct ModelFamily {
  std::string_view model_type;
  // Class-name prefix of its `architectures` ("Bert" in BertForSequenceClassification): picks
  // the family when model_type is missing.
  std::string_view architecture_prefix;
  // The config.json keys of d_model and heads, for error messages: BertConfig's unless renamed.
  std::string_view d_model_key = "hidden_size";
  std::string_view heads_key = "num_attention_heads";
  // Our own family rejects unknown keys: a misspelt option must not be silently ignored.
  bool reject_unknown_keys = false;
  // Fills config.encoder (except has_pooler), config.labels and family-specific hints.
  void (*read_config)(JsonField& fields, ModelConfig& config);
  // Maps the file's tensors onto weights; may set config.encoder.has_pooler.
  void (*bind_weights)(TensorBinder& tensors, ModelConfig& config, EncoderWeights& weights);
};

extern const ModelFamily kBertFamily;
extern const ModelFamily kRobertaFamily;
extern const ModelFamily kXlmRobertaFamily;
extern const ModelFamily kDistilBertFamily;
extern const ModelFamily kRoFormerFamily;
extern const ModelFamily kMpnetFamily;
extern const ModelFamily kTinyencFamily;

// All families, in the order error messages list them.
const std::vector<const ModelFamily*>& model_families();
const ModelFamily* find_model_family(std::string_view model_type);

// Helpers every family may use (model_family.cc; the BERT-shaped ones are in bert_common.h).

// hidden_act / activation: gelu -> erf GELU; gelu_new, gelu_pytorch_tanh, gelu_fast -> tanh GELU;
// relu.
Activation read_activation(JsonField& fields, const std::string& key);

// A token id hint (pad_token_id, ...): nullopt when absent or null, as transformers writes it.
std::optional<int64_t> read_token_id(JsonField& fields, const std::string& key);

// layer_norm_eps: a positive float32.
float read_layer_norm_eps(JsonField& fields, double fallback);

// id2label {"0": "NEGATIVE", "1": "POSITIVE"} ordered by id; nullopt when absent.
std::optional<std::vector<std::string>> read_id2label(JsonField& fields);

// A Hugging Face *ForSequenceClassification head's labels: id2label, or LABEL_0.. for
// num_labels (default 2) as transformers names them.
std::vector<std::string> read_classifier_labels(JsonField& fields);

bool is_sequence_classifier(const ModelConfig& config);

// The base model's prefix in task checkpoints ("bert." in BertForSequenceClassification),
// recognised by where the word embeddings are; "" when they are at the root.
std::string detect_prefix(const TensorBinder& tensors, const std::string& prefix,
                          const std::string& probe);

// BERT-style pooler: <name>.weight/bias [d_model, d_model]; sets has_pooler when present and
// requires it for pooler pooling.
void bind_optional_pooler(TensorBinder& tensors, const std::string& name, ModelConfig& config,
                          EncoderWeights& weights);

}  // namespace tinyenc
