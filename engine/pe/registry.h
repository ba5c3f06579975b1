// Every position-encoding kind, by name. A new kind is one file in engine/pe/kinds/ (its
// validation and its hooks) plus its entry in registry.cc (a declaration and a list item) and
// its PositionEncodingKind value.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/encoder_config.h"
#include "engine/encoder_weights.h"
#include "engine/pe/hooks.h"
#include "engine/pe/invalid_field.h"

namespace tinyenc {

struct PositionEncodingType {
  PositionEncodingKind kind;
  std::string_view name;
  // Throws InvalidField when `config` cannot run this kind. With config.heads == 0 (shape not
  // known yet, as for a position_encoding object read on its own) only the kind's parameters
  // are checked.
  void (*validate)(const EncoderConfig& config, const FieldNames& names);
  // Throws std::invalid_argument when a weight the kind needs is missing.
  std::unique_ptr<PositionEncoding> (*make)(const EncoderConfig& config,
                                            const EncoderWeights& weights);
};

const std::vector<const PositionEncodingType*>& position_encoding_types();
const PositionEncodingType& position_encoding_type(PositionEncodingKind kind);
// "none, sinusoidal, ... or relative", for messages listing what a config may name.
std::string position_encoding_names();

// The one validation of config.position_encoding, for the engine and for models/.
void validate_position_encoding(const EncoderConfig& config, const FieldNames& names = {});
std::unique_ptr<PositionEncoding> make_position_encoding(const EncoderConfig& config,
                                                         const EncoderWeights& weights);

}  // namespace tinyenc
