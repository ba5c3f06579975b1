#include "models/position_encoding_config.h"

#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

namespace tinyenc {
namespace {

class Fields {
 public:
  Fields(const nlohmann::json& object, const std::string& where) : object_(object), where_(where) {
    if (!object.is_object()) fail("", "must be a JSON object");
  }

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw std::invalid_argument(where_ + (field.empty() ? "" : "." + field) + ": " + what);
  }

  std::string text(const std::string& field, const std::string& fallback) {
    const nlohmann::json* value = find(field);
    if (!value) return fallback;
    if (!value->is_string()) fail(field, "must be a string");
    return value->get<std::string>();
  }

  double number(const std::string& field, double fallback) {
    const nlohmann::json* value = find(field);
    if (!value) return fallback;
    if (!value->is_number()) fail(field, "must be a number");
    return value->get<double>();
  }

  int64_t integer(const std::string& field, int64_t fallback, int64_t minimum) {
    const nlohmann::json* value = find(field);
    if (!value) return fallback;
    if (!value->is_number_integer()) fail(field, "must be an integer");
    const int64_t result = value->get<int64_t>();
    if (result < minimum) fail(field, "must be >= " + std::to_string(minimum));
    return result;
  }

  bool boolean(const std::string& field, bool fallback) {
    const nlohmann::json* value = find(field);
    if (!value) return fallback;
    if (!value->is_boolean()) fail(field, "must be true or false");
    return value->get<bool>();
  }

  void reject_unknown() const {
    for (const auto& [key, value] : object_.items()) {
      if (!used_.count(key)) fail(key, "unknown parameter for this kind");
    }
  }

 private:
  const nlohmann::json* find(const std::string& field) {
    used_.insert(field);
    const auto it = object_.find(field);
    return it == object_.end() ? nullptr : &*it;
  }

  const nlohmann::json& object_;
  std::string where_;
  std::set<std::string> used_;
};

}  // namespace

PositionEncodingConfig parse_position_encoding_config(const nlohmann::json& object,
                                                      const std::string& where) {
  Fields fields(object, where);
  PositionEncodingConfig config;
  const std::string kind = fields.text("kind", "");
  if (kind.empty()) fields.fail("kind", "missing");
  const auto parsed = parse_position_encoding(kind);
  if (!parsed) {
    fields.fail("kind", "unknown kind '" + kind +
                            "' (expected none, sinusoidal, learned, rope, alibi or relative)");
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
        fields.fail("layout", "expected interleaved or concat, got '" + layout + "'");
      config.sinusoidal.layout = *parsed_layout;
      config.sinusoidal.base = fields.number("base", 10000.0);
      if (!(config.sinusoidal.base > 1.0)) fields.fail("base", "must be > 1");
      config.scale_embeddings = fields.boolean("scale_embeddings", false);
      break;
    }
    case PositionEncodingKind::kLearned:
      config.max_positions = fields.integer("max_positions", 512, 1);
      break;
    case PositionEncodingKind::kRope: {
      const std::string pairing = fields.text("pairing", "half");
      const auto parsed_pairing = parse_rope_pairing(pairing);
      if (!parsed_pairing)
        fields.fail("pairing", "expected half or interleaved, got '" + pairing + "'");
      config.rope.pairing = *parsed_pairing;
      config.rope.theta = fields.number("theta", 10000.0);
      if (!(config.rope.theta > 1.0)) fields.fail("theta", "must be > 1");
      config.rope.rotary_dim = fields.integer("rotary_dim", 0, 0);
      if (config.rope.rotary_dim % 2 != 0) fields.fail("rotary_dim", "must be even");
      break;
    }
    case PositionEncodingKind::kRelative:
      config.relative.num_buckets = fields.integer("num_buckets", 32, 4);
      config.relative.max_distance = fields.integer("max_distance", 128, 1);
      if (config.relative.max_distance <= config.relative.num_buckets / 4) {
        fields.fail("max_distance", "must be > num_buckets / 4");
      }
      break;
  }
  fields.reject_unknown();
  return config;
}

}  // namespace tinyenc
