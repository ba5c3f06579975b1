#include "engine/pe/registry.h"

#include <stdexcept>
#include <string>

namespace tinyenc {

// Defined one per file in engine/pe/kinds/.
const PositionEncodingType& no_position_encoding();
const PositionEncodingType& sinusoidal_position_encoding();
const PositionEncodingType& learned_position_encoding();
const PositionEncodingType& rope_position_encoding();
const PositionEncodingType& alibi_position_encoding();
const PositionEncodingType& relative_position_encoding();
const PositionEncodingType& learned_relative_position_encoding();

const std::vector<const PositionEncodingType*>& position_encoding_types() {
  static const std::vector<const PositionEncodingType*> types{
      &no_position_encoding(),
      &sinusoidal_position_encoding(),
      &learned_position_encoding(),
      &rope_position_encoding(),
      &alibi_position_encoding(),
      &relative_position_encoding(),
      &learned_relative_position_encoding(),
  };
  return types;
}

const PositionEncodingType& position_encoding_type(PositionEncodingKind kind) {
  for (const PositionEncodingType* type : position_encoding_types()) {
    if (type->kind == kind) return *type;
  }
  throw std::invalid_argument("position_encoding: unknown kind " +
                              std::to_string(static_cast<int>(kind)));
}

std::string position_encoding_names() {
  const std::vector<const PositionEncodingType*>& types = position_encoding_types();
  std::string names;
  for (size_t i = 0; i < types.size(); ++i) {
    if (i > 0) names += i + 1 < types.size() ? ", " : " or ";
    names += types[i]->name;
  }
  return names;
}

void validate_position_encoding(const EncoderConfig& config, const FieldNames& names) {
  position_encoding_type(config.position_encoding.kind).validate(config, names);
}

std::unique_ptr<PositionEncoding> make_position_encoding(const EncoderConfig& config,
                                                         const EncoderWeights& weights) {
  return position_encoding_type(config.position_encoding.kind).make(config, weights);
}

}  // namespace tinyenc
