// <tinyenc/info.h>: the machine (engine/isa.h, engine/onednn.h, engine/dtype.h) and a model
// folder (its config, safetensors header and tokenizer) as plain values.
#include <tinyenc/info.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <stdexcept>
#include <utility>

#include "engine/dtype.h"
#include "engine/encoder.h"
#include "engine/isa.h"
#include "engine/onednn.h"
#include "engine/pe/attention_bias.h"
#include "engine/pe/registry.h"
#include "engine/threads.h"
#include "models/linear_choice_book.h"
#include "models/model_info.h"
#include "models/pipeline.h"
#include "models/public_model_impl.h"
#include "models/safetensors.h"
#include "tokenizer/load_tokenizer.h"
#include "tokenizer/sentencepiece_tokenizer.h"
#include "tokenizer/wordpiece_tokenizer.h"

namespace tinyenc {
namespace {

// "rope (pairing half, theta 10000, rotary_dim 16 of head_dim 16)": the kind's own words.
std::string pe_description(const PositionEncodingType& type, const PositionEncodingInfo& pe) {
  std::string details = type.summary_text(pe.parameters);
  if (pe.scale_embeddings) details += ", token embeddings scaled by sqrt(d_model)";
  return pe.kind + " (" + details + ")";
}

std::optional<TokenizerInfo> tokenizer_info(const SubwordTokenizer* tokenizer) {
  if (tokenizer == nullptr) return std::nullopt;
  TokenizerInfo info;
  info.kind = "other";
  if (dynamic_cast<const SentencePieceTokenizer*>(tokenizer)) info.kind = "sentencepiece";
  if (dynamic_cast<const WordPieceTokenizer*>(tokenizer)) info.kind = "wordpiece";
  info.vocab_size = tokenizer->vocab_size();
  info.special_template = describe_template(tokenizer->special_template(), false);
  info.pair_special_template = describe_template(tokenizer->special_template(), true);
  info.description = tokenizer->describe();
  return info;
}

// Reads the safetensors header of <dir>/model.safetensors again for the dtypes and byte counts.
WeightsInfo weights_info(const std::filesystem::path& dir, const LoadedModel& model,
                         const Encoder& encoder) {
  const std::filesystem::path path = dir / "model.safetensors";
  const SafetensorsFile file(path);
  WeightsInfo info;
  std::map<std::string, WeightsInfo::Stored> by_dtype;
  for (const TensorInfo& tensor : file.tensors()) {
    WeightsInfo::Stored& stored = by_dtype[std::string(dtype_name(tensor.dtype))];
    ++stored.tensors;
    stored.bytes += tensor.end - tensor.begin;
    info.elements += tensor.elements;
  }
  for (auto& [dtype, stored] : by_dtype) {
    stored.dtype = dtype;
    info.stored.push_back(stored);
  }
  info.file = path.string();
  info.file_bytes = std::filesystem::file_size(path);
  info.tensors = static_cast<int64_t>(file.tensors().size());
  info.float32_bytes = encoder.parameter_count() * 4;
  info.memory_bytes = encoder.weight_bytes();
  info.unused_tensors = model.unused_tensors;
  info.ignored_tensors = model.ignored_tensors;
  return info;
}

// `with_file`: the model came from a folder's model.safetensors (not random weights).
ModelInfo describe(const std::filesystem::path& dir, const LoadedModel& model,
                   const Encoder& encoder, const SubwordTokenizer* tokenizer, bool with_file) {
  const ModelConfig& config = model.config;
  const EncoderConfig& c = encoder.config();
  ModelInfo info;
  info.model = dir.string();
  info.family = config.family;
  info.architecture = config.architecture;
  PositionEncodingInfo& pe = info.position_encoding;
  const PositionEncodingType& type = position_encoding_type(c.position_encoding.kind);
  pe.kind = type.name;
  // The kind's summary fields (SummaryFields) are InfoValues: the same variant.
  pe.parameters = type.summary_fields(c);
  pe.scale_embeddings = c.position_encoding.scale_embeddings;
  pe.description = pe_description(type, pe);
  info.layers = c.layers;
  info.heads = c.heads;
  info.head_dim = c.head_dim();
  info.d_model = c.d_model;
  info.ffn_dim = c.ffn_dim;
  info.activation = std::string(activation_name(c.activation));
  info.pre_layer_norm = c.norm_first;
  info.embedding_layer_norm = c.embedding_layer_norm;
  info.final_layer_norm = c.final_layer_norm;
  info.layer_norm_eps = static_cast<double>(c.layer_norm_eps);
  info.pooling = std::string(pooling_name(c.pooling));
  info.pooler = c.has_pooler;
  info.normalize = config.normalize_embeddings;
  info.vocab_size = c.vocab_size;
  info.type_vocab_size = c.type_vocab_size;
  info.num_labels = c.num_labels;
  info.labels = config.labels;
  info.max_tokens = config.max_sequence_length > 0 ? config.max_sequence_length : 0;
  info.tokenizer = tokenizer_info(tokenizer);
  info.parameters = encoder.parameter_count();
  if (with_file) info.weights = weights_info(dir, model, encoder);
  info.dtype = std::string(compute_dtype_name(c.dtype));
  info.dtype_reason = model.dtype_reason;
  if (model.stored_dtype) info.stored_dtype = std::string(compute_dtype_name(*model.stored_dtype));
  return info;
}

// The folder's tokenizer, or null when it has none (such a model runs on ids only).
std::unique_ptr<SubwordTokenizer> optional_tokenizer(const std::filesystem::path& dir) {
  bool present = false;
  for (const char* name : {"tokenizer.model", "tokenizer.json", "vocab.txt"}) {
    present = present || std::filesystem::exists(dir / name);
  }
  if (!present) return nullptr;
  try {
    return load_tokenizer_from_folder(dir);
  } catch (const std::runtime_error& e) {
    throw std::invalid_argument(e.what());
  }
}

}  // namespace

std::string version() { return TINYENC_VERSION; }

RuntimeInfo runtime_info() {
  return guarded([] {
    RuntimeInfo info;
    for (Isa isa : compiled_isas()) {
      info.compiled_pe_kernels.emplace_back(isa_name(isa));
      if (isa_supported(isa)) info.supported_pe_kernels.emplace_back(isa_name(isa));
    }
    info.pe_kernels = std::string(isa_name(active_isa()));
    info.onednn_version = onednn_version();
    info.cpu_model = cpu_model_name();
    info.cpu_features = cpu_feature_list(cpu_features());
    info.cpus = available_cpus();
    info.linear_choice = linear_choice_summary();
    return info;
  });
}

std::vector<std::string> position_encoding_kinds() {
  std::vector<std::string> names;
  for (const PositionEncodingType* type : position_encoding_types()) {
    names.emplace_back(type->name);
  }
  return names;
}

ModelInfo model_info(const std::string& folder, const std::string& dtype) {
  return guarded([&] {
    const std::filesystem::path dir(folder);
    const LoadedModel model = load_user_model(dir, dtype);
    const std::unique_ptr<SubwordTokenizer> tokenizer = optional_tokenizer(dir);
    const Encoder encoder(model.config.encoder, model.weights);
    return describe(dir, model, encoder, tokenizer.get(), true);
  });
}

ModelInfo model_info(const Model& model) { return model_info(ModelAccess::impl(model).pipeline); }

ModelInfo model_info(const Pipeline& pipeline) {
  return guarded([&] {
    // A model from a folder knows the roles of its file's tensors; random weights have none.
    const bool with_file = !pipeline.model().tensor_roles.empty();
    return describe(pipeline.dir(), pipeline.model(), pipeline.encoder(),
                    pipeline.has_tokenizer() ? &pipeline.tokenizer() : nullptr, with_file);
  });
}

}  // namespace tinyenc
