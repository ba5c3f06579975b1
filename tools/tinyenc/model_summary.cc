#include "tools/tinyenc/model_summary.h"

#include <cstdio>
#include <map>
#include <type_traits>
#include <variant>
#include <vector>

#include "engine/pe/registry.h"
#include "models/safetensors.h"
#include "tokenizer/sentencepiece_tokenizer.h"
#include "tokenizer/wordpiece_tokenizer.h"

namespace tinyenc::cli {
namespace {

using nlohmann::json;

json summary_json(const SummaryValue& value) {
  return std::visit(
      [](const auto& alternative) -> json {
        if constexpr (std::is_same_v<std::decay_t<decltype(alternative)>, std::monostate>) {
          return nullptr;
        } else {
          return alternative;
        }
      },
      value);
}

SummaryValue summary_value(const json& value) {
  if (value.is_null()) return std::monostate{};
  if (value.is_boolean()) return value.get<bool>();
  if (value.is_number_integer()) return value.get<int64_t>();
  if (value.is_number()) return value.get<double>();
  if (value.is_string()) return value.get<std::string>();
  return value.get<std::vector<double>>();
}

// The kind's own fields (PositionEncodingType::summary_fields), then scale_embeddings.
json position_encoding_json(const EncoderConfig& config) {
  const PositionEncodingConfig& pe = config.position_encoding;
  const PositionEncodingType& type = position_encoding_type(pe.kind);
  json out = {{"kind", type.name}};
  for (const auto& [field, value] : type.summary_fields(config)) out[field] = summary_json(value);
  out["scale_embeddings"] = pe.scale_embeddings;
  return out;
}

json tokenizer_json(const SubwordTokenizer* tokenizer) {
  if (!tokenizer) return nullptr;
  std::string kind = "other";
  if (dynamic_cast<const SentencePieceTokenizer*>(tokenizer)) kind = "sentencepiece";
  if (dynamic_cast<const WordPieceTokenizer*>(tokenizer)) kind = "wordpiece";
  return {{"kind", kind},
          {"vocab_size", tokenizer->vocab_size()},
          {"template", describe_template(tokenizer->special_template(), false)},
          {"pair_template", describe_template(tokenizer->special_template(), true)},
          {"description", tokenizer->describe()}};
}

json weights_json(const std::filesystem::path& dir, const LoadedModel& model,
                  const Encoder& encoder) {
  const std::filesystem::path path = dir / "model.safetensors";
  const SafetensorsFile file(path);
  std::map<std::string, std::pair<int64_t, uint64_t>> by_dtype;  // tensors, bytes
  uint64_t elements = 0;
  for (const TensorInfo& tensor : file.tensors()) {
    auto& [tensors, bytes] = by_dtype[std::string(dtype_name(tensor.dtype))];
    ++tensors;
    bytes += tensor.end - tensor.begin;
    elements += tensor.elements;
  }
  json dtypes = json::object();
  for (const auto& [dtype, counts] : by_dtype) {
    dtypes[dtype] = {{"tensors", counts.first}, {"bytes", counts.second}};
  }
  return {{"file", path.string()},
          {"file_bytes", std::filesystem::file_size(path)},
          {"tensors", file.tensors().size()},
          {"elements", elements},
          {"dtypes", std::move(dtypes)},
          {"float32_bytes", encoder.parameter_count() * 4},
          // What the weights take once loaded for the dtype that runs (Encoder::weight_bytes).
          {"memory_bytes", encoder.weight_bytes()},
          {"memory_dtype", std::string(compute_dtype_name(encoder.config().dtype))},
          {"unused_tensors", model.unused_tensors},
          {"ignored_tensors", model.ignored_tensors}};
}

// 73546 -> "73,546" (counts are never negative).
std::string with_commas(int64_t value) {
  const std::string digits = std::to_string(value);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// How the weights are held in memory for a compute dtype (Encoder::weight_bytes).
std::string memory_form(const std::string& dtype) {
  if (dtype == "int8") {
    return "as int8 (Linear weights s8 with per-channel scales and row sums; embeddings, "
           "LayerNorms, biases f32)";
  }
  if (dtype == "bf16") return "as bf16 (Linear weights bf16; embeddings, LayerNorms, biases f32)";
  return "as float32";
}

std::string number(const json& value) {
  if (value.is_number_integer()) return std::to_string(value.get<int64_t>());
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", value.get<double>());
  return buffer;
}

// "rope (pairing half, theta 10000, rotary_dim 16 of head_dim 16)".
std::string position_encoding_text(const json& pe) {
  const std::string kind = pe["kind"];
  const PositionEncodingType* type = find_position_encoding_type(kind);
  std::string details;
  if (type) {
    SummaryFields fields;
    for (const auto& [field, value] : pe.items()) fields.emplace_back(field, summary_value(value));
    details = type->summary_text(fields);
  }
  if (pe["scale_embeddings"].get<bool>()) details += ", token embeddings scaled by sqrt(d_model)";
  std::string text = kind;
  text += " (";
  text += details;
  text += ")";
  return text;
}

std::string shape_text(const json& s) {
  return number(s["layers"]) + (s["layers"] == 1 ? " layer, " : " layers, ") + number(s["heads"]) +
         " heads (head_dim " + number(s["head_dim"]) + "), d_model " + number(s["d_model"]) +
         ", ffn " + number(s["ffn_dim"]) + " " + s["activation"].get<std::string>() + ", " +
         s["norm"].get<std::string>();
}

}  // namespace

json summarize_model(const std::filesystem::path& dir, const LoadedModel& model,
                     const Encoder& encoder, const SubwordTokenizer* tokenizer) {
  const ModelConfig& config = model.config;
  const EncoderConfig& c = encoder.config();
  const int64_t parameters = encoder.parameter_count();
  json labels = config.labels;
  return {
      {"model", dir.string()},
      {"family", config.family},
      {"architecture", config.architecture.empty() ? json(nullptr) : json(config.architecture)},
      {"position_encoding", position_encoding_json(c)},
      {"layers", c.layers},
      {"heads", c.heads},
      {"head_dim", c.head_dim()},
      {"d_model", c.d_model},
      {"ffn_dim", c.ffn_dim},
      {"activation", std::string(activation_name(c.activation))},
      {"norm", c.norm_first ? "pre-LN" : "post-LN"},
      {"embedding_layer_norm", c.embedding_layer_norm},
      {"final_layer_norm", c.final_layer_norm},
      {"layer_norm_eps", static_cast<double>(c.layer_norm_eps)},
      {"pooling", std::string(pooling_name(c.pooling))},
      {"pooler", c.has_pooler},
      // A sentence-transformers Normalize module (2_Normalize): embeddings come out L2-normalized.
      {"normalize", config.normalize_embeddings},
      {"vocab_size", c.vocab_size},
      {"type_vocab_size", c.type_vocab_size},
      {"num_labels", c.num_labels},
      {"labels", std::move(labels)},
      {"max_positions",
       config.max_sequence_length > 0 ? json(config.max_sequence_length) : json(nullptr)},
      {"tokenizer", tokenizer_json(tokenizer)},
      {"parameters", parameters},
      {"weights", weights_json(dir, model, encoder)},
      {"dtype",
       {{"compute", std::string(compute_dtype_name(c.dtype))},
        {"reason", model.dtype_reason},
        {"stored", model.stored_dtype ? json(std::string(compute_dtype_name(*model.stored_dtype)))
                                      : json(nullptr)}}}};
}

std::string summary_table(const json& s) {
  std::string out;
  const auto line = [&](const char* name, const std::string& value) {
    char label[24];
    std::snprintf(label, sizeof label, "%-13s", (std::string(name) + ":").c_str());
    out += label;
    out += value;
    out += "\n";
  };
  line("model", s["model"].get<std::string>());
  std::string family = s["family"];
  if (!s["architecture"].is_null()) family += " (" + s["architecture"].get<std::string>() + ")";
  line("family", family);
  line("encoder", shape_text(s));
  line("position", position_encoding_text(s["position_encoding"]));
  line("max length",
       s["max_positions"].is_null() ? "no limit" : number(s["max_positions"]) + " tokens");
  std::string norms = s["embedding_layer_norm"].get<bool>() ? "after the embeddings" : "";
  if (s["final_layer_norm"].get<bool>()) norms += norms.empty() ? "final" : ", final";
  std::string layer_norm = "eps " + number(s["layer_norm_eps"]);
  if (!norms.empty()) layer_norm.append("; ").append(norms);
  line("layer norm", layer_norm);
  std::string pooling = s["pooling"];
  if (s["pooler"].get<bool>()) pooling += " (has pooler weights)";
  if (s.value("normalize", false)) pooling += ", then L2-normalized (2_Normalize)";
  line("pooling", pooling);
  std::string vocab = number(s["vocab_size"]) + " tokens";
  vocab += s["type_vocab_size"].get<int64_t>() > 0
               ? ", " + number(s["type_vocab_size"]) + " token types"
               : ", no token types";
  line("vocab", vocab);
  std::string labels = number(s["num_labels"]);
  if (s["num_labels"] == 0) labels += " (no classification head)";
  if (!s["labels"].empty()) {
    std::string names;
    for (const json& name : s["labels"]) {
      names += (names.empty() ? "" : ", ") + name.get<std::string>();
    }
    labels += " (" + names + ")";
  }
  line("labels", labels);
  const json& tokenizer = s["tokenizer"];
  line("tokenizer",
       tokenizer.is_null() ? "none (run with --ids)" : tokenizer["description"].get<std::string>());
  if (!tokenizer.is_null()) line("pairs", tokenizer["pair_template"].get<std::string>());
  line("parameters", with_commas(s["parameters"].get<int64_t>()));
  const json& weights = s["weights"];
  std::string dtypes;
  for (const auto& [dtype, counts] : weights["dtypes"].items()) {
    if (!dtypes.empty()) dtypes += ", ";
    dtypes += dtype;
    dtypes += " " + with_commas(counts["bytes"].get<int64_t>()) + " bytes in " +
              number(counts["tensors"]) + " tensors";
  }
  line("dtype", s["dtype"]["compute"].get<std::string>() + " (" +
                    s["dtype"]["reason"].get<std::string>() + ")");
  line("weights", dtypes + " on disk; " + with_commas(weights["memory_bytes"].get<int64_t>()) +
                      " bytes in memory " +
                      memory_form(weights["memory_dtype"].get<std::string>()));
  const size_t unused = weights["unused_tensors"].size();
  const size_t ignored = weights["ignored_tensors"].size();
  if (unused + ignored > 0) {
    line("not used", std::to_string(unused) + " tensors not used by this family, " +
                         std::to_string(ignored) + " skipped on purpose");
  }
  return out;
}

std::string summary_line(const json& s) {
  std::string out = s["model"].get<std::string>() + ": " + s["family"].get<std::string>() + ", " +
                    shape_text(s) + ", PE " + position_encoding_text(s["position_encoding"]) +
                    ", pooling " + s["pooling"].get<std::string>() + ", " +
                    with_commas(s["parameters"].get<int64_t>()) + " parameters, dtype " +
                    s["dtype"]["compute"].get<std::string>() + " (" +
                    s["dtype"]["reason"].get<std::string>() + ")";
  return out;
}

}  // namespace tinyenc::cli
