#include "models/sentence_transformers.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "engine/io/json_document.h"
#include "engine/io/json_field.h"
#include "engine/io/quoted.h"
#include "engine/io/regular_file.h"

namespace tinyenc {
namespace {

// Both files are a few hundred bytes; the limit bounds what a hostile one can make us read.
constexpr uint64_t kMaxModuleFileBytes = 1000u * 1000u;

constexpr std::string_view kModuleType = "sentence_transformers.models.";

nlohmann::json read_json(const std::filesystem::path& path, const std::string& why) {
  std::string text;
  try {
    text = read_regular_file(path, kMaxModuleFileBytes);
  } catch (const std::system_error& e) {
    if (e.code() != std::errc::no_such_file_or_directory) throw;
    throw std::runtime_error(path.string() + ": cannot open (" + why + ")");
  }
  return parse_json_document(text, path.string());
}

// The pooling modes sentence-transformers writes (models/Pooling.py, get_config_dict), and what
// tinyenc runs of them. Concatenating several is Pooling's feature too, and not supported.
struct PoolingMode {
  const char* key;
  std::optional<Pooling> pooling;
  const char* name;
};
constexpr PoolingMode kPoolingModes[] = {
    {"pooling_mode_cls_token", Pooling::kCls, "cls"},
    {"pooling_mode_mean_tokens", Pooling::kMean, "mean"},
    {"pooling_mode_max_tokens", std::nullopt, "max"},
    {"pooling_mode_mean_sqrt_len_tokens", std::nullopt, "mean_sqrt_len"},
    {"pooling_mode_weightedmean_tokens", std::nullopt, "weightedmean"},
    {"pooling_mode_lasttoken", std::nullopt, "lasttoken"},
};

Pooling read_pooling_config(const std::filesystem::path& path, const ModelConfig& config) {
  const nlohmann::json json = read_json(path, "modules.json lists it as the Pooling module");
  JsonField fields = JsonField::file(json, path.string());
  const int64_t dimension = fields.required_integer("word_embedding_dimension", 1);
  if (dimension != config.encoder.d_model) {
    fields.fail("word_embedding_dimension",
                std::to_string(dimension) + " differs from the model's d_model " +
                    std::to_string(config.encoder.d_model) + " (config.json)");
  }
  std::optional<PoolingMode> chosen;
  for (const PoolingMode& mode : kPoolingModes) {
    if (!fields.boolean(mode.key, false)) continue;
    if (!mode.pooling) {
      fields.fail(mode.key, std::string(mode.name) +
                                " pooling is not supported (tinyenc pools cls or mean tokens)");
    }
    if (chosen) {
      fields.fail(mode.key, std::string("true as well as ") + chosen->key +
                                ": concatenated poolings are not supported");
    }
    chosen = mode;
  }
  if (!chosen) {
    fields.fail("pooling_mode_mean_tokens",
                "no pooling_mode_* is true (expected pooling_mode_cls_token or this)");
  }
  // include_prompt matters only for prompts, which tinyenc does not prepend.
  fields.boolean("include_prompt", true);
  // A mode added by a later sentence-transformers would change the embedding: refuse it.
  fields.reject_unknown("unknown key (tinyenc knows sentence-transformers' Pooling keys)");
  return *chosen->pooling;
}

// sentence_bert_config.json's max_seq_length: sentence-transformers truncates every text to that
// many tokens, special tokens included (all-MiniLM-L6-v2: 256 of the 512 positions its table
// has), so the model is only known to work up to there.
void read_transformer_length(const std::filesystem::path& dir, ModelConfig& config) {
  const std::filesystem::path path = dir / "sentence_bert_config.json";
  if (file_type_of(path) == std::filesystem::file_type::not_found) return;
  const nlohmann::json json = read_json(path, "it holds the Transformer module's settings");
  JsonField fields = JsonField::file(json, path.string());
  const std::optional<int64_t> max_seq_length = fields.optional_integer("max_seq_length", 1);
  if (!max_seq_length) return;
  if (config.max_sequence_length <= 0 || *max_seq_length < config.max_sequence_length) {
    config.max_sequence_length = *max_seq_length;
  }
}

}  // namespace

void read_sentence_transformers_modules(const std::filesystem::path& dir, ModelConfig& config) {
  const std::filesystem::path modules_path = dir / "modules.json";
  if (file_type_of(modules_path) == std::filesystem::file_type::not_found) return;
  const nlohmann::json modules =
      read_json(modules_path, "it lists the sentence-transformers modules");
  const std::string file = modules_path.string();
  if (!modules.is_array()) {
    throw std::invalid_argument(file + ": must be a JSON array of modules");
  }
  // The modules run in order: Transformer, Pooling, then optionally Normalize.
  const std::vector<std::string> expected = {"Transformer", "Pooling", "Normalize"};
  std::optional<Pooling> pooling;
  bool normalize = false;
  for (size_t i = 0; i < modules.size(); ++i) {
    JsonField module = JsonField::member(modules[i], file + ": [" + std::to_string(i) + "]");
    const std::string type = module.required_text("type");
    const std::string path = module.required_text("path");
    const std::string name =
        type.starts_with(kModuleType) ? type.substr(kModuleType.size()) : std::string();
    if (i >= expected.size() || name != expected[i]) {
      module.fail("type", in_quotes(type) + " is not supported here (tinyenc runs " +
                              "sentence_transformers.models.Transformer, Pooling and Normalize, "
                              "in this order)");
    }
    if (name == "Transformer" && !path.empty()) {
      module.fail("path",
                  in_quotes(path) + ": the Transformer must be the folder itself (path \"\")");
    }
    if (name == "Transformer") read_transformer_length(dir, config);
    if (name == "Pooling") {
      if (path.empty() || path.find("..") != std::string::npos || path.front() == '/') {
        module.fail("path", in_quotes(path) + " is not a subfolder of the model");
      }
      pooling = read_pooling_config(dir / path / "config.json", config);
    }
    if (name == "Normalize") normalize = true;
  }
  if (!pooling) {
    throw std::invalid_argument(file + ": no sentence_transformers.models.Pooling module");
  }
  if (config.encoder.num_labels > 0) {
    throw std::invalid_argument(
        file +
        ": pooling for a sequence classifier (config.json has id2label): its head "
        "reads its own pooling");
  }
  config.encoder.pooling = *pooling;
  config.normalize_embeddings = normalize;
}

}  // namespace tinyenc
