#include "engine/pe/registry.h"

#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>

namespace tinyenc {

// Every kind, in the order of PositionEncodingKind's named values; a kind's place here is its
// PositionEncodingKind. A new kind adds one line: KIND(name) for the function
// `PositionEncodingType name_position_encoding()` its file in engine/pe/kinds/ defines.
#define TINYENC_POSITION_ENCODING_KINDS(KIND) \
  KIND(no)                                    \
  KIND(sinusoidal)                            \
  KIND(learned)                               \
  KIND(rope)                                  \
  KIND(alibi)                                 \
  KIND(relative)                              \
  KIND(learned_relative)

#define TINYENC_DECLARE_KIND(name) PositionEncodingType name##_position_encoding();
TINYENC_POSITION_ENCODING_KINDS(TINYENC_DECLARE_KIND)
#undef TINYENC_DECLARE_KIND

namespace {

std::vector<PositionEncodingType> numbered(std::vector<PositionEncodingType> types) {
  for (size_t i = 0; i < types.size(); ++i) {
    types[i].kind = static_cast<PositionEncodingKind>(i);
  }
  return types;
}

const std::vector<PositionEncodingType>& all_types() {
#define TINYENC_LIST_KIND(name) name##_position_encoding(),
  static const std::vector<PositionEncodingType> types =
      numbered({TINYENC_POSITION_ENCODING_KINDS(TINYENC_LIST_KIND)});
#undef TINYENC_LIST_KIND
  return types;
}

}  // namespace

const std::vector<const PositionEncodingType*>& position_encoding_types() {
  static const std::vector<const PositionEncodingType*> types = [] {
    std::vector<const PositionEncodingType*> pointers;
    for (const PositionEncodingType& type : all_types()) pointers.push_back(&type);
    return pointers;
  }();
  return types;
}

const std::vector<const PositionEncodingDescription*>& position_encoding_descriptions() {
  static const std::vector<const PositionEncodingDescription*> descriptions = [] {
    std::vector<const PositionEncodingDescription*> pointers;
    for (const PositionEncodingType& type : all_types()) pointers.push_back(&type);
    return pointers;
  }();
  return descriptions;
}

const PositionEncodingType& position_encoding_type(PositionEncodingKind kind) {
  const std::vector<PositionEncodingType>& types = all_types();
  const auto index = static_cast<size_t>(kind);
  if (index < types.size()) return types[index];
  throw std::invalid_argument("position_encoding: unknown kind " +
                              std::to_string(static_cast<int>(kind)));
}

const PositionEncodingType* find_position_encoding_type(std::string_view name) {
  for (const PositionEncodingType& type : all_types()) {
    if (type.name == name) return &type;
  }
  return nullptr;
}

const PositionEncodingDescription* find_position_encoding_description(std::string_view name) {
  return find_position_encoding_type(name);
}

bool has_position_table(PositionEncodingKind kind) {
  return position_encoding_type(kind).reads_position_table;
}
bool has_relative_bias_table(PositionEncodingKind kind) {
  return position_encoding_type(kind).reads_relative_bias_table;
}

std::string position_encoding_names() {
  const std::vector<PositionEncodingType>& types = all_types();
  std::string names;
  for (size_t i = 0; i < types.size(); ++i) {
    if (i > 0) names += i + 1 < types.size() ? ", " : " or ";
    names += types[i].name;
  }
  return names;
}

void validate_position_encoding(const EncoderShape& shape, const FieldNames& names) {
  position_encoding_type(shape.position_encoding.kind).validate(shape, names);
}

std::unique_ptr<PositionEncoding> make_position_encoding(const EncoderShape& shape,
                                                         const PositionEncodingWeights& weights) {
  return position_encoding_type(shape.position_encoding.kind).make(shape, weights);
}

ParameterValue PositionEncodingType::parameter(const PositionEncodingConfig& config,
                                               size_t index) const {
  if (parameter_access[index].get) return parameter_access[index].get(config);
  const auto found = config.parameters.find(parameters[index].name);
  return found != config.parameters.end() ? found->second : parameters[index].default_value;
}

void PositionEncodingType::set_parameter(PositionEncodingConfig& config, size_t index,
                                         const ParameterValue& value) const {
  if (parameter_access[index].set) {
    parameter_access[index].set(config, value);
  } else {
    config.parameters[parameters[index].name] = value;
  }
}

SummaryFields PositionEncodingType::summary_fields(const EncoderShape& shape) const {
  if (summarize) return summarize(shape);
  SummaryFields fields;
  for (size_t i = 0; i < parameters.size(); ++i) {
    std::visit([&](const auto& value) { fields.emplace_back(parameters[i].name, value); },
               parameter(shape.position_encoding, i));
  }
  return fields;
}

std::string PositionEncodingType::summary_text(const SummaryFields& fields) const {
  if (describe) return describe(fields);
  if (parameters.empty()) return summary;
  std::string text;
  for (const ParameterDescription& parameter : parameters) {
    if (!text.empty()) text += ", ";
    text += parameter.name + " " + summary_number(summary_field(fields, parameter.name));
  }
  return text;
}

const SummaryValue& summary_field(const SummaryFields& fields, std::string_view name) {
  static const SummaryValue kNull;
  for (const auto& [field, value] : fields) {
    if (field == name) return value;
  }
  return kNull;
}

std::string summary_number(const SummaryValue& value) {
  if (const auto* integer = std::get_if<int64_t>(&value)) return std::to_string(*integer);
  if (const auto* number = std::get_if<double>(&value)) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%g", *number);
    return buffer;
  }
  if (const auto* text = std::get_if<std::string>(&value)) return *text;
  if (const auto* flag = std::get_if<bool>(&value)) return *flag ? "true" : "false";
  return "null";
}

ParameterDescription integer_parameter(std::string name, int64_t fallback, int64_t minimum,
                                       std::string range, std::string help,
                                       std::string config_field) {
  ParameterDescription parameter;
  parameter.name = std::move(name);
  parameter.default_value = fallback;
  parameter.minimum = minimum;
  parameter.range = std::move(range);
  parameter.help = std::move(help);
  parameter.config_field = std::move(config_field);
  return parameter;
}

ParameterDescription number_parameter(std::string name, double fallback, std::string range,
                                      std::string help) {
  ParameterDescription parameter;
  parameter.name = std::move(name);
  parameter.default_value = fallback;
  parameter.range = std::move(range);
  parameter.help = std::move(help);
  return parameter;
}

ParameterDescription flag_parameter(std::string name, bool fallback, std::string help) {
  ParameterDescription parameter;
  parameter.name = std::move(name);
  parameter.default_value = fallback;
  parameter.range = "true or false";
  parameter.help = std::move(help);
  return parameter;
}

ParameterDescription choice_parameter(std::string name, std::vector<std::string> choices,
                                      std::string help) {
  ParameterDescription parameter;
  parameter.name = std::move(name);
  parameter.default_value = choices.front();
  for (size_t i = 0; i < choices.size(); ++i) {
    if (i > 0) parameter.range += i + 1 < choices.size() ? ", " : " or ";
    parameter.range += choices[i];
  }
  parameter.choices = std::move(choices);
  parameter.help = std::move(help);
  return parameter;
}

ParameterValue to_parameter_value(int64_t value) { return value; }
ParameterValue to_parameter_value(double value) { return value; }
ParameterValue to_parameter_value(bool value) { return value; }
ParameterValue to_parameter_value(SinusoidalLayout value) {
  return std::string(sinusoidal_layout_name(value));
}
ParameterValue to_parameter_value(RopePairing value) {
  return std::string(rope_pairing_name(value));
}
void from_parameter_value(const ParameterValue& value, int64_t& field) {
  field = std::get<int64_t>(value);
}
void from_parameter_value(const ParameterValue& value, double& field) {
  field = std::get<double>(value);
}
void from_parameter_value(const ParameterValue& value, bool& field) {
  field = std::get<bool>(value);
}
void from_parameter_value(const ParameterValue& value, SinusoidalLayout& field) {
  field = parse_sinusoidal_layout(std::get<std::string>(value)).value();
}
void from_parameter_value(const ParameterValue& value, RopePairing& field) {
  field = parse_rope_pairing(std::get<std::string>(value)).value();
}

}  // namespace tinyenc
