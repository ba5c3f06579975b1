#include "models/position_encoding_config.h"

#include <algorithm>
#include <limits>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/io/json_field.h"
#include "engine/io/quoted.h"
#include "engine/pe/registry.h"

namespace tinyenc {
namespace {

// One parameter as its description says: its type, default, smallest integer and choices.
ParameterValue read_parameter(const JsonField& fields, const ParameterDescription& parameter) {
  const std::string& name = parameter.name;
  if (const auto* flag = std::get_if<bool>(&parameter.default_value)) {
    return fields.boolean(name, *flag);
  }
  if (const auto* integer = std::get_if<int64_t>(&parameter.default_value)) {
    return fields.integer(name, *integer,
                          parameter.minimum.value_or(std::numeric_limits<int64_t>::min()));
  }
  if (const auto* number = std::get_if<double>(&parameter.default_value)) {
    return fields.number(name, *number);
  }
  const std::string text = fields.text(name, std::get<std::string>(parameter.default_value));
  const std::vector<std::string>& choices = parameter.choices;
  if (!choices.empty() && std::find(choices.begin(), choices.end(), text) == choices.end()) {
    fields.fail(name, "expected " + parameter.range + ", got " + in_quotes(text));
  }
  return text;
}

}  // namespace

PositionEncodingConfig parse_position_encoding_config(const nlohmann::json& object,
                                                      const std::string& where) {
  JsonField fields = JsonField::member(object, where);
  PositionEncodingConfig config;
  const std::string kind = fields.text("kind", "");
  if (kind.empty()) fields.fail("kind", "missing");
  const PositionEncodingType* type = find_position_encoding_type(kind);
  if (!type) {
    fields.fail("kind", "unknown kind " + in_quotes(kind) + " (expected " +
                            position_encoding_names() + ")");
  }
  config.kind = type->kind;
  for (size_t i = 0; i < type->parameters.size(); ++i) {
    type->set_parameter(config, i, read_parameter(fields, type->parameters[i]));
  }
  // The kind's own parameters only: the model's shape is not known here (config.cc checks the
  // rest with the same validation once it is).
  EncoderShape parameters_only;
  parameters_only.position_encoding = config;
  try {
    validate_position_encoding(parameters_only, FieldNames{.position_encoding = ""});
  } catch (const InvalidField& e) {
    fields.fail(e.field, e.message);
  }
  fields.reject_unknown("unknown parameter for this kind");
  return config;
}

}  // namespace tinyenc
