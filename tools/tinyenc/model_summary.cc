#include "model_summary.h"

#include <cstdio>
#include <type_traits>
#include <utility>
#include <variant>

namespace tinyenc::cli {
namespace {

using nlohmann::json;

json parameter_json(const InfoValue& value) {
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

json position_encoding_json(const PositionEncodingInfo& pe) {
  json out = {{"kind", pe.kind}};
  for (const auto& [name, value] : pe.parameters) out[name] = parameter_json(value);
  out["scale_embeddings"] = pe.scale_embeddings;
  return out;
}

json tokenizer_json(const std::optional<TokenizerInfo>& tokenizer) {
  if (!tokenizer) return nullptr;
  return {{"kind", tokenizer->kind},
          {"vocab_size", tokenizer->vocab_size},
          {"template", tokenizer->special_template},
          {"pair_template", tokenizer->pair_special_template},
          {"description", tokenizer->description}};
}

json weights_json(const WeightsInfo& weights, const std::string& dtype) {
  json dtypes = json::object();
  for (const WeightsInfo::Stored& stored : weights.stored) {
    dtypes[stored.dtype] = {{"tensors", stored.tensors}, {"bytes", stored.bytes}};
  }
  return {{"file", weights.file},
          {"file_bytes", weights.file_bytes},
          {"tensors", weights.tensors},
          {"elements", weights.elements},
          {"dtypes", std::move(dtypes)},
          {"float32_bytes", weights.float32_bytes},
          // What the weights take once loaded for the dtype that runs.
          {"memory_bytes", weights.memory_bytes},
          {"memory_dtype", dtype},
          {"unused_tensors", weights.unused_tensors},
          {"ignored_tensors", weights.ignored_tensors}};
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

// How the weights are held in memory for a compute dtype (WeightsInfo::memory_bytes).
std::string memory_form(const std::string& dtype) {
  if (dtype == "int8") {
    return "as int8 (Linear weights s8 with per-channel scales and row sums; embeddings, "
           "LayerNorms, biases f32)";
  }
  if (dtype == "bf16") return "as bf16 (Linear weights bf16; embeddings, LayerNorms, biases f32)";
  return "as float32";
}

std::string number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", value);
  return buffer;
}

std::string shape_text(const ModelInfo& m) {
  return std::to_string(m.layers) + (m.layers == 1 ? " layer, " : " layers, ") +
         std::to_string(m.heads) + " heads (head_dim " + std::to_string(m.head_dim) +
         "), d_model " + std::to_string(m.d_model) + ", ffn " + std::to_string(m.ffn_dim) + " " +
         m.activation + ", " + (m.pre_layer_norm ? "pre-LN" : "post-LN");
}

}  // namespace

json summarize_model(const ModelInfo& m) {
  json summary = {
      {"model", m.model},
      {"family", m.family},
      {"architecture", m.architecture.empty() ? json(nullptr) : json(m.architecture)},
      {"position_encoding", position_encoding_json(m.position_encoding)},
      {"layers", m.layers},
      {"heads", m.heads},
      {"head_dim", m.head_dim},
      {"d_model", m.d_model},
      {"ffn_dim", m.ffn_dim},
      {"activation", m.activation},
      {"norm", m.pre_layer_norm ? "pre-LN" : "post-LN"},
      {"embedding_layer_norm", m.embedding_layer_norm},
      {"final_layer_norm", m.final_layer_norm},
      {"layer_norm_eps", m.layer_norm_eps},
      {"pooling", m.pooling},
      {"pooler", m.pooler},
      // A sentence-transformers Normalize module (2_Normalize): embeddings come out L2-normalized.
      {"normalize", m.normalize},
      {"vocab_size", m.vocab_size},
      {"type_vocab_size", m.type_vocab_size},
      {"num_labels", m.num_labels},
      {"labels", m.labels},
      {"max_positions", m.max_tokens > 0 ? json(m.max_tokens) : json(nullptr)},
      {"tokenizer", tokenizer_json(m.tokenizer)},
      {"parameters", m.parameters},
      {"dtype",
       {{"compute", m.dtype},
        {"reason", m.dtype_reason},
        {"stored", m.stored_dtype.empty() ? json(nullptr) : json(m.stored_dtype)}}}};
  if (m.weights) summary["weights"] = weights_json(*m.weights, m.dtype);
  return summary;
}

std::string summary_table(const ModelInfo& m) {
  std::string out;
  const auto line = [&](const char* name, const std::string& value) {
    char label[24];
    std::snprintf(label, sizeof label, "%-13s", (std::string(name) + ":").c_str());
    out += label;
    out += value;
    out += "\n";
  };
  line("model", m.model);
  std::string family = m.family;
  if (!m.architecture.empty()) family += " (" + m.architecture + ")";
  line("family", family);
  line("encoder", shape_text(m));
  line("position", m.position_encoding.description);
  line("max length", m.max_tokens <= 0 ? "no limit" : std::to_string(m.max_tokens) + " tokens");
  std::string norms = m.embedding_layer_norm ? "after the embeddings" : "";
  if (m.final_layer_norm) norms += norms.empty() ? "final" : ", final";
  std::string layer_norm = "eps " + number(m.layer_norm_eps);
  if (!norms.empty()) layer_norm.append("; ").append(norms);
  line("layer norm", layer_norm);
  std::string pooling = m.pooling;
  if (m.pooler) pooling += " (has pooler weights)";
  if (m.normalize) pooling += ", then L2-normalized (2_Normalize)";
  line("pooling", pooling);
  std::string vocab = std::to_string(m.vocab_size) + " tokens";
  vocab += m.type_vocab_size > 0 ? ", " + std::to_string(m.type_vocab_size) + " token types"
                                 : ", no token types";
  line("vocab", vocab);
  std::string labels = std::to_string(m.num_labels);
  if (m.num_labels == 0) labels += " (no classification head)";
  if (!m.labels.empty()) {
    std::string names;
    for (const std::string& name : m.labels) names += (names.empty() ? "" : ", ") + name;
    labels += " (" + names + ")";
  }
  line("labels", labels);
  line("tokenizer", m.tokenizer ? m.tokenizer->description : "none (run with --ids)");
  if (m.tokenizer) line("pairs", m.tokenizer->pair_special_template);
  line("parameters", with_commas(m.parameters));
  line("dtype", m.dtype + " (" + m.dtype_reason + ")");
  if (m.weights) {
    const WeightsInfo& weights = *m.weights;
    std::string dtypes;
    for (const WeightsInfo::Stored& stored : weights.stored) {
      if (!dtypes.empty()) dtypes += ", ";
      dtypes += stored.dtype;
      dtypes += ' ';
      dtypes += with_commas(static_cast<int64_t>(stored.bytes));
      dtypes += " bytes in " + std::to_string(stored.tensors) + " tensors";
    }
    line("weights", dtypes + " on disk; " + with_commas(weights.memory_bytes) +
                        " bytes in memory " + memory_form(m.dtype));
    const size_t unused = weights.unused_tensors.size();
    const size_t ignored = weights.ignored_tensors.size();
    if (unused + ignored > 0) {
      line("not used", std::to_string(unused) + " tensors not used by this family, " +
                           std::to_string(ignored) + " skipped on purpose");
    }
  }
  return out;
}

std::string summary_line(const ModelInfo& m) {
  return m.model + ": " + m.family + ", " + shape_text(m) + ", PE " +
         m.position_encoding.description + ", pooling " + m.pooling + ", " +
         with_commas(m.parameters) + " parameters, dtype " + m.dtype + " (" + m.dtype_reason + ")";
}

}  // namespace tinyenc::cli
