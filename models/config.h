// A model folder's config.json, read into the engine's EncoderConfig plus what the rest of the
// program needs: the model family, the class labels and hints for the tokenizer.
//
// Families are chosen by `model_type` (or, when it is missing, by `architectures`):
//   bert, roberta, xlm-roberta, distilbert, roformer  Hugging Face configs, their own keys;
//   tinyenc  our own: BERT keys plus position_encoding, pooling, norm_first, embedding_layer_norm.
// Errors throw std::invalid_argument("<dir>/config.json: <field>: <what>").
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/encoder_config.h"

namespace tinyenc {

struct ModelConfig {
  std::string family;        // model_type: "bert", "roberta", "xlm-roberta", ...
  std::string architecture;  // first entry of `architectures`, "" when absent
  // `encoder.has_pooler` is final only after load_model has seen the weights: BERT-style
  // checkpoints may or may not carry pooler weights.
  EncoderConfig encoder;
  std::vector<std::string> labels;  // id2label ordered by id; empty without a classification head

  // Tokenizer hints, when config.json gives them.
  std::optional<int64_t> pad_token_id;
  std::optional<int64_t> cls_token_id;  // RoBERTa: bos_token_id
  std::optional<int64_t> sep_token_id;  // RoBERTa: eos_token_id
  std::optional<int64_t> max_position_embeddings;
  // The longest input (special tokens included) the position encoding allows; 0: no limit.
  // RoBERTa's learned table loses padding_idx + 1 rows to its position offset (514 -> 512).
  int64_t max_sequence_length = 0;
  // sentence-transformers' Normalize module (modules.json): the pooled embedding is reported
  // L2-normalized (models/normalize_embedding.h). Its Pooling module sets encoder.pooling.
  bool normalize_embeddings = false;
};

// `file` names config.json in errors.
ModelConfig model_config_from_json(const nlohmann::json& json, const std::string& file);
ModelConfig parse_model_config(std::string_view json_text, const std::string& file);
// Reads <dir>/config.json, and <dir>/modules.json in a sentence-transformers folder
// (models/sentence_transformers.h); std::runtime_error("<path>: <what>") when it cannot be read
// (missing, or not a regular file: engine/io/regular_file.h).
ModelConfig read_model_config(const std::filesystem::path& dir);

// The model_type values tinyenc loads.
std::vector<std::string_view> supported_model_types();

}  // namespace tinyenc
