#include "models/config.h"

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <system_error>

#include "engine/io/json_document.h"
#include "engine/io/json_field.h"
#include "engine/io/quoted.h"
#include "engine/io/regular_file.h"
#include "engine/pe/registry.h"
#include "models/model_family.h"
#include "models/sentence_transformers.h"

namespace tinyenc {
namespace {

// A real config.json is kilobytes (megabytes with a large id2label); the limit bounds what a
// hostile one can make us read.
constexpr uint64_t kMaxConfigBytes = 100u * 1000u * 1000u;

std::string supported_list() {
  std::string list;
  for (const ModelFamily* family : model_families()) {
    list += (list.empty() ? "" : ", ") + std::string(family->model_type);
  }
  return list;
}

// model_type, or the family whose class names `architectures` uses (configs written before
// transformers saved model_type).
const ModelFamily& family_of(JsonField& fields, const std::string& architecture) {
  if (const std::optional<std::string> model_type = fields.optional_text("model_type")) {
    const ModelFamily* family = find_model_family(*model_type);
    if (!family) {
      fields.fail("model_type", "unsupported model_type " + in_quotes(*model_type) +
                                    " (tinyenc loads " + supported_list() + ")");
    }
    return *family;
  }
  // Prefixes match from the start of the class name: DistilBertModel is never taken for Bert.
  for (const ModelFamily* family : model_families()) {
    if (!architecture.empty() && architecture.starts_with(family->architecture_prefix)) {
      return *family;
    }
  }
  fields.fail("model_type", architecture.empty()
                                ? "missing (and no architectures to infer it from)"
                                : "missing, and architectures " + in_quotes(architecture) +
                                      " names no family tinyenc loads (" + supported_list() + ")");
}

std::string read_architecture(JsonField& fields) {
  const nlohmann::json* architectures = fields.value_of("architectures");
  if (!architectures || architectures->is_null()) return "";
  if (!architectures->is_array()) fields.fail("architectures", "must be an array of class names");
  for (const nlohmann::json& name : *architectures) {
    if (!name.is_string()) fields.fail("architectures", "must be an array of class names");
  }
  return architectures->empty() ? "" : (*architectures)[0].get<std::string>();
}

// Checks that need the whole configuration, naming the family's own keys.
void check(JsonField& fields, const ModelFamily& family, const ModelConfig& config) {
  const EncoderConfig& encoder = config.encoder;
  const std::string d_model_key(family.d_model_key);
  const std::string heads_key(family.heads_key);
  if (encoder.d_model % encoder.heads != 0) {
    fields.fail(d_model_key, std::to_string(encoder.d_model) + " is not divisible by " + heads_key +
                                 " " + std::to_string(encoder.heads));
  }
  try {
    validate_position_encoding(encoder, FieldNames{.d_model = d_model_key, .heads = heads_key});
  } catch (const InvalidField& e) {
    fields.fail(e.field, e.message);
  }
  const auto check_token = [&](const char* key, const std::optional<int64_t>& id) {
    if (id && *id >= encoder.vocab_size) {
      fields.fail(key, std::to_string(*id) + " is not below vocab_size " +
                           std::to_string(encoder.vocab_size));
    }
  };
  check_token("pad_token_id", config.pad_token_id);
  check_token("cls_token_id", config.cls_token_id);
  check_token("sep_token_id", config.sep_token_id);
}

int64_t max_sequence_length(const ModelConfig& config) {
  const PositionEncodingConfig& position_encoding = config.encoder.position_encoding;
  if (has_position_table(position_encoding.kind)) {
    const int64_t offset =
        position_encoding.padding_idx >= 0 ? position_encoding.padding_idx + 1 : 0;
    return position_encoding.max_positions - offset;
  }
  return config.max_position_embeddings.value_or(0);
}

}  // namespace

ModelConfig model_config_from_json(const nlohmann::json& json, const std::string& file) {
  JsonField fields = JsonField::file(json, file);
  ModelConfig config;
  config.architecture = read_architecture(fields);
  const ModelFamily& family = family_of(fields, config.architecture);
  config.family = family.model_type;
  config.pad_token_id = read_token_id(fields, "pad_token_id");
  config.cls_token_id = read_token_id(fields, "cls_token_id");
  config.sep_token_id = read_token_id(fields, "sep_token_id");
  read_token_id(fields, "bos_token_id");  // read for their checks; RoBERTa uses them
  read_token_id(fields, "eos_token_id");
  family.read_config(fields, config);
  check(fields, family, config);
  if (family.reject_unknown_keys) {
    fields.reject_unknown("unknown key for model_type " + std::string(family.model_type));
  }
  config.max_sequence_length = max_sequence_length(config);
  return config;
}

ModelConfig parse_model_config(std::string_view json_text, const std::string& file) {
  return model_config_from_json(parse_json_document(json_text, file), file);
}

ModelConfig read_model_config(const std::filesystem::path& dir) {
  const std::filesystem::path path = dir / "config.json";
  std::string text;
  try {
    text = read_regular_file(path, kMaxConfigBytes);
  } catch (const std::system_error& e) {
    if (e.code() != std::errc::no_such_file_or_directory) throw;
    throw std::runtime_error(path.string() + ": cannot open (a model folder needs config.json)");
  }
  ModelConfig config = parse_model_config(text, path.string());
  read_sentence_transformers_modules(dir, config);
  return config;
}

std::vector<std::string_view> supported_model_types() {
  std::vector<std::string_view> types;
  for (const ModelFamily* family : model_families()) types.push_back(family->model_type);
  return types;
}

}  // namespace tinyenc
