#include "models/position_encoding_config.h"

#include <nlohmann/json.hpp>

#include "engine/io/json_field.h"
#include "engine/io/quoted.h"
#include "engine/pe/registry.h"

namespace tinyenc {
namespace {

void read_learned_parameters(JsonField& fields, PositionEncodingConfig& config) {
  config.max_positions = fields.integer("max_positions", 512, 1);
  // RoBERTa style (see PositionEncodingConfig): -1, the default, numbers positions from 0.
  config.padding_idx = fields.integer("padding_idx", -1, -1);
}

void read_relative_parameters(JsonField& fields, PositionEncodingConfig& config) {
  config.relative.num_buckets = fields.integer("num_buckets", 32, 4);
  config.relative.max_distance = fields.integer("max_distance", 128, 1);
}

}  // namespace

PositionEncodingConfig parse_position_encoding_config(const nlohmann::json& object,
                                                      const std::string& where) {
  JsonField fields = JsonField::member(object, where);
  PositionEncodingConfig config;
  const std::string kind = fields.text("kind", "");
  if (kind.empty()) fields.fail("kind", "missing");
  const auto parsed = parse_position_encoding(kind);
  if (!parsed) {
    fields.fail("kind", "unknown kind " + in_quotes(kind) + " (expected " +
                            position_encoding_names() + ")");
  }
  config.kind = *parsed;
  switch (config.kind) {
    case PositionEncodingKind::kNone:
    case PositionEncodingKind::kAlibi:
      break;
    case PositionEncodingKind::kSinusoidal: {
      const std::string layout = fields.text("layout", "interleaved");
      const auto parsed_layout = parse_sinusoidal_layout(layout);
      if (!parsed_layout)
        fields.fail("layout", "expected interleaved or concat, got " + in_quotes(layout));
      config.sinusoidal.layout = *parsed_layout;
      config.sinusoidal.base = fields.number("base", 10000.0);
      config.scale_embeddings = fields.boolean("scale_embeddings", false);
      break;
    }
    case PositionEncodingKind::kLearned:
      read_learned_parameters(fields, config);
      break;
    case PositionEncodingKind::kRope: {
      const std::string pairing = fields.text("pairing", "half");
      const auto parsed_pairing = parse_rope_pairing(pairing);
      if (!parsed_pairing)
        fields.fail("pairing", "expected half or interleaved, got " + in_quotes(pairing));
      config.rope.pairing = *parsed_pairing;
      config.rope.theta = fields.number("theta", 10000.0);
      config.rope.rotary_dim = fields.integer("rotary_dim", 0, 0);
      break;
    }
    case PositionEncodingKind::kRelative:
      read_relative_parameters(fields, config);
      break;
    case PositionEncodingKind::kLearnedRelative:
      read_learned_parameters(fields, config);
      read_relative_parameters(fields, config);
      break;
  }
  // The kind's own parameters only: the model's shape is not known here (config.cc checks the
  // rest with the same validation once it is).
  EncoderConfig parameters_only;
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
