// <tinyenc/position_encoding_table.h>: a kind's fixed table (engine/pe/registry.h), its
// parameters read and checked as a config.json's position_encoding object is.
#include <tinyenc/position_encoding_table.h>

#include <limits>
#include <variant>

#include <nlohmann/json.hpp>

#include "engine/pe/registry.h"
#include "models/position_encoding_config.h"
#include "models/public_model_impl.h"

namespace tinyenc {

std::vector<float> position_encoding_table(const std::string& kind, int64_t d_model,
                                           int64_t first_position, int64_t positions,
                                           const PositionEncodingParameters& parameters) {
  return guarded([&] {
    const PositionEncodingType* type = find_position_encoding_type(kind);
    if (!type) {
      throw bad_input("position encoding: unknown kind '" + kind + "' (expected " +
                      position_encoding_names() + ")");
    }
    if (!type->fixed_table) {
      throw bad_input("position encoding " + kind +
                      ": no fixed table; it lives in a model's weights or inside attention");
    }
    if (d_model <= 0) throw bad_input("d_model must be > 0, got " + std::to_string(d_model));
    if (first_position < 0 || positions < 0) {
      throw bad_input("positions must be >= 0, got first_position " +
                      std::to_string(first_position) + " and positions " +
                      std::to_string(positions));
    }
    if (positions > std::numeric_limits<int64_t>::max() - first_position) {
      throw bad_input("positions: " + std::to_string(first_position) + " + " +
                      std::to_string(positions) + " is past the last position");
    }
    if (positions > static_cast<int64_t>(std::vector<float>().max_size()) / d_model) {
      throw bad_input("a table of " + std::to_string(positions) + " x " + std::to_string(d_model) +
                      " values is too large");
    }
    // The same object a config.json would hold, read by the same code: the same checks and
    // messages ("position_encoding.base: must be > 1").
    nlohmann::json object = {{"kind", kind}};
    for (const auto& [name, value] : parameters) {
      if (object.contains(name)) throw bad_input("position encoding: '" + name + "' given twice");
      object[name] = std::visit([](const auto& given) { return nlohmann::json(given); }, value);
    }
    EncoderShape shape;
    shape.d_model = d_model;
    shape.heads = 1;  // the kind's checks of d_model run only on a known shape
    shape.position_encoding = parse_position_encoding_config(object, "position_encoding");
    validate_position_encoding(shape, FieldNames{.d_model = "d_model"});
    std::vector<float> values(static_cast<size_t>(positions * d_model));
    type->table(shape, first_position, positions, values.data());
    return values;
  });
}

}  // namespace tinyenc
