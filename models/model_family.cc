#include "models/model_family.h"
#include "engine/io/quoted.h"

#include <map>
#include <nlohmann/json.hpp>

namespace tinyenc {

const std::vector<const ModelFamily*>& model_families() {
  static const std::vector<const ModelFamily*> families = {
      &kBertFamily,     &kRobertaFamily, &kXlmRobertaFamily, &kDistilBertFamily,
      &kRoFormerFamily, &kMpnetFamily,   &kTinyencFamily};
  return families;
}

const ModelFamily* find_model_family(std::string_view model_type) {
  for (const ModelFamily* family : model_families()) {
    if (family->model_type == model_type) return family;
  }
  return nullptr;
}

Activation read_activation(JsonField& fields, const std::string& key) {
  const std::string name = fields.text(key, "gelu");
  // transformers' ACT2FN: "gelu" is the exact erf form; gelu_new, gelu_pytorch_tanh and
  // gelu_fast all compute the tanh approximation of Hendrycks & Gimpel.
  if (name == "gelu") return Activation::kGeluErf;
  if (name == "gelu_new" || name == "gelu_pytorch_tanh" || name == "gelu_fast") {
    return Activation::kGeluTanh;
  }
  if (name == "relu") return Activation::kRelu;
  fields.fail(key, "unsupported activation " + in_quotes(name) +
                       " (expected gelu, gelu_new, gelu_pytorch_tanh, gelu_fast or relu)");
}

std::optional<int64_t> read_token_id(JsonField& fields, const std::string& key) {
  const nlohmann::json* value = fields.value_of(key);
  if (!value || value->is_null()) return std::nullopt;
  return fields.optional_integer(key, 0);
}

float read_layer_norm_eps(JsonField& fields, double fallback) {
  const float eps = static_cast<float>(fields.number("layer_norm_eps", fallback));
  if (!(eps > 0.0f)) fields.fail("layer_norm_eps", "must be > 0 (as a float32)");
  return eps;
}

std::optional<std::vector<std::string>> read_id2label(JsonField& fields) {
  const nlohmann::json* object = fields.value_of("id2label");
  if (!object) return std::nullopt;
  if (!object->is_object()) fields.fail("id2label", "must be an object {\"0\": \"label\", ...}");
  std::map<int64_t, std::string> by_id;
  for (const auto& [key, value] : object->items()) {
    // Keys are decimal ids written as JSON strings; accept only the canonical spelling.
    int64_t id = -1;
    if (!key.empty() && key.size() <= 9 &&
        key.find_first_not_of("0123456789") == std::string::npos &&
        (key == "0" || key.front() != '0')) {
      id = std::stoll(key);
    }
    if (id < 0)
      fields.fail("id2label", "key " + in_quotes(key) + " is not a label id (0, 1, 2, ...)");
    if (!value.is_string()) fields.fail("id2label", "label of id " + key + " must be a string");
    by_id.emplace(id, value.get<std::string>());
  }
  std::vector<std::string> labels;
  for (const auto& [id, label] : by_id) {
    if (id != static_cast<int64_t>(labels.size())) {
      fields.fail("id2label", "ids must run 0.." + std::to_string(by_id.size() - 1) + ", but " +
                                  std::to_string(labels.size()) + " is missing");
    }
    labels.push_back(label);
  }
  return labels;
}

std::vector<std::string> read_classifier_labels(JsonField& fields) {
  const std::optional<int64_t> num_labels = fields.optional_integer("num_labels", 1);
  if (std::optional<std::vector<std::string>> labels = read_id2label(fields)) {
    if (labels->empty()) fields.fail("id2label", "a sequence classifier needs at least one label");
    if (num_labels && *num_labels != static_cast<int64_t>(labels->size())) {
      fields.fail("num_labels", std::to_string(*num_labels) + " differs from the " +
                                    std::to_string(labels->size()) + " labels of id2label");
    }
    return *labels;
  }
  std::vector<std::string> labels;
  for (int64_t id = 0; id < num_labels.value_or(2); ++id) {
    labels.push_back("LABEL_" + std::to_string(id));
  }
  return labels;
}

bool is_sequence_classifier(const ModelConfig& config) {
  return config.architecture.ends_with("ForSequenceClassification");
}

std::string detect_prefix(const TensorBinder& tensors, const std::string& prefix,
                          const std::string& probe) {
  return !tensors.has(probe) && tensors.has(prefix + probe) ? prefix : "";
}

void bind_optional_pooler(TensorBinder& tensors, const std::string& name, ModelConfig& config,
                          EncoderWeights& weights) {
  EncoderConfig& encoder = config.encoder;
  if (encoder.pooling == Pooling::kPooler || tensors.has(name + ".weight")) {
    weights.pooler = tensors.linear(name, encoder.d_model, encoder.d_model);
    encoder.has_pooler = true;
  }
}

}  // namespace tinyenc
