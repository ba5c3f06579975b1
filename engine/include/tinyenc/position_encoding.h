// What a position-encoding kind says about itself: its name, its parameters, what it does to the
// forward pass and how figures draw it. Each kind in engine/pe/kinds/ fills one; config parsing,
// `tinyenc info`, `tinyenc pe` and the figures read it instead of naming kinds. Part of the
// public library (<tinyenc/position_encoding.h>): the standard library only, so that the
// description is shown to library users as it is.
//
//   for (const auto* kind : tinyenc::position_encoding_descriptions())
//     std::printf("%s: %s\n", kind->name.c_str(), kind->summary.c_str());
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace tinyenc {

// A parameter's value; its alternative is the parameter's type (a text parameter with choices
// names one of them).
using ParameterValue = std::variant<bool, int64_t, double, std::string>;

struct ParameterDescription {
  std::string name;              // its key in the position_encoding object of a config.json
  ParameterValue default_value;  // also fixes the type
  // Integers below `minimum` are refused as they are read; the kind's validation checks the rest
  // of `range` (which may depend on other parameters or on the model's shape).
  std::optional<int64_t> minimum;
  std::vector<std::string> choices;  // text parameters: the values allowed
  std::string range;                 // the values allowed, in words: "> 1", "even, <= head_dim"
  std::string help;
  // The top-level config.json field of the model families that set it from their own config
  // (max_position_embeddings), empty when only the position_encoding object names it.
  std::string config_field;
};

// How figures draw the kind: the same kind looks the same in every picture.
struct FigureStyle {
  std::string color;   // "#rrggbb"
  std::string marker;  // circle, square, diamond, triangle-up, triangle-down or plus
  std::string dash;    // an SVG stroke-dasharray, empty for a solid line
};

struct PositionEncodingDescription {
  std::string name;
  std::string summary;  // one line
  std::vector<ParameterDescription> parameters;
  // Sees positions only through their differences i - j: shifting every position by the same
  // offset leaves the outputs unchanged (up to the rounding of the angles for rope). A kind that
  // sees no position at all (none) is not relative: it has nothing to shift.
  bool relative = false;
  bool adds_to_embeddings = false;    // rows added to the token embeddings
  bool biases_attention = false;      // a bias added to the attention scores
  bool rotates_queries_keys = false;  // q and k rotated before the scores
  // Its values for positions 0, 1, ... follow from d_model and its parameters alone (no weights,
  // no attention), so `tinyenc pe` can print them.
  bool fixed_table = false;
  FigureStyle figure;
};

// Every kind, in the registry's order.
const std::vector<const PositionEncodingDescription*>& position_encoding_descriptions();
// Null when no kind has that name.
const PositionEncodingDescription* find_position_encoding_description(std::string_view name);

}  // namespace tinyenc
