// Every position-encoding kind, by name. A new kind is one file in engine/pe/kinds/ (its
// description, validation and hooks, in a function returning its PositionEncodingType) and one
// line in registry.cc's list; CMake finds the file by itself.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "engine/pe/hooks.h"
#include "engine/pe/invalid_field.h"
#include "engine/pe/kind_description.h"
#include "engine/pe/position_encoding.h"

namespace tinyenc {

// How one parameter is kept in a PositionEncodingConfig; both null: in its `parameters` map.
struct ParameterAccess {
  ParameterValue (*get)(const PositionEncodingConfig& config) = nullptr;
  void (*set)(PositionEncodingConfig& config, const ParameterValue& value) = nullptr;
};

// What `tinyenc info` shows of a kind: named values (null, a flag, a number, a text or a list
// of numbers), kept as its JSON holds them.
using SummaryValue =
    std::variant<std::monostate, bool, int64_t, double, std::string, std::vector<double>>;
using SummaryFields = std::vector<std::pair<std::string, SummaryValue>>;

// The description plus the code behind it.
struct PositionEncodingType : PositionEncodingDescription {
  PositionEncodingKind kind{};  // given by the registry: the kind's place in its list

  // Throws InvalidField when `shape` cannot run this kind. With shape.heads == 0 (shape not
  // known yet, as for a position_encoding object read on its own) only the kind's parameters
  // are checked.
  void (*validate)(const EncoderShape& shape, const FieldNames& names) = nullptr;
  // Throws std::invalid_argument when a weight the kind needs is missing.
  std::unique_ptr<PositionEncoding> (*make)(const EncoderShape& shape,
                                            const PositionEncodingWeights& weights) = nullptr;
  // The learned tables it reads (PositionEncodingWeights).
  bool reads_position_table = false;
  bool reads_relative_bias_table = false;

  // `tinyenc info`: the fields of the model's kind (null: its parameters as they are) and the
  // text made of them, found by name (null: "name value" for each parameter, or the summary when
  // there is none).
  SummaryFields (*summarize)(const EncoderShape& shape) = nullptr;
  std::string (*describe)(const SummaryFields& fields) = nullptr;
  // When fixed_table: rows [positions, shape.d_model] for positions first_position,
  // first_position + 1, ... into `out`.
  void (*table)(const EncoderShape& shape, int64_t first_position, int64_t positions,
                float* out) = nullptr;

  // Parameters and how each is kept, in parallel (add_parameter keeps them so).
  std::vector<ParameterAccess> parameter_access;
  void add_parameter(ParameterDescription parameter, ParameterAccess access = {}) {
    parameters.push_back(std::move(parameter));
    parameter_access.push_back(access);
  }
  ParameterValue parameter(const PositionEncodingConfig& config, size_t index) const;
  void set_parameter(PositionEncodingConfig& config, size_t index,
                     const ParameterValue& value) const;
  SummaryFields summary_fields(const EncoderShape& shape) const;
  std::string summary_text(const SummaryFields& fields) const;
};

// Descriptions of the four types of parameter.
ParameterDescription integer_parameter(std::string name, int64_t fallback, int64_t minimum,
                                       std::string range, std::string help,
                                       std::string config_field = "");
ParameterDescription number_parameter(std::string name, double fallback, std::string range,
                                      std::string help);
ParameterDescription flag_parameter(std::string name, bool fallback, std::string help);
// The first choice is the default.
ParameterDescription choice_parameter(std::string name, std::vector<std::string> choices,
                                      std::string help);

// Access to a field of PositionEncodingConfig through a path of member pointers, e.g.
// field_access<&PositionEncodingConfig::rope, &RopeParams::theta>().
ParameterValue to_parameter_value(int64_t value);
ParameterValue to_parameter_value(double value);
ParameterValue to_parameter_value(bool value);
ParameterValue to_parameter_value(SinusoidalLayout value);
ParameterValue to_parameter_value(RopePairing value);
void from_parameter_value(const ParameterValue& value, int64_t& field);
void from_parameter_value(const ParameterValue& value, double& field);
void from_parameter_value(const ParameterValue& value, bool& field);
void from_parameter_value(const ParameterValue& value, SinusoidalLayout& field);
void from_parameter_value(const ParameterValue& value, RopePairing& field);

template <auto... Path>
ParameterAccess field_access() {
  return {
      [](const PositionEncodingConfig& config) { return to_parameter_value((config.*....*Path)); },
      [](PositionEncodingConfig& config, const ParameterValue& value) {
        from_parameter_value(value, (config.*....*Path));
      }};
}

// The field of that name, null when there is none.
const SummaryValue& summary_field(const SummaryFields& fields, std::string_view name);
// 10000 -> "10000", 0.5 -> "0.5" (printf's %g), as `tinyenc info` writes numbers.
std::string summary_number(const SummaryValue& value);

const std::vector<const PositionEncodingType*>& position_encoding_types();
const PositionEncodingType& position_encoding_type(PositionEncodingKind kind);
// Null when no kind has that name.
const PositionEncodingType* find_position_encoding_type(std::string_view name);
// "none, sinusoidal, ... or relative", for messages listing what a config may name.
std::string position_encoding_names();

// The one validation of shape.position_encoding, for the engine and for models/.
void validate_position_encoding(const EncoderShape& shape, const FieldNames& names = {});
std::unique_ptr<PositionEncoding> make_position_encoding(const EncoderShape& shape,
                                                         const PositionEncodingWeights& weights);

}  // namespace tinyenc
