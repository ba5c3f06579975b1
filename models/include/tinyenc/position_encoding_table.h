// The values of a position encoding with a fixed table (PositionEncodingDescription::fixed_table:
// they follow from d_model and the kind's parameters alone), as the engine adds them to the token
// embeddings.
//
//   // The seed article's example: sinusoidal, d_model 4, positions 0 to 2.
//   std::vector<float> rows = tinyenc::position_encoding_table("sinusoidal", 4, 0, 3);
//   // rows[1 * 4 + 0] is sin(1), rows[1 * 4 + 1] is cos(1).
#pragma once

#include <tinyenc/position_encoding.h>
#include <tinyenc/tinyenc.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tinyenc {

// A kind's parameters by name (ParameterDescription::name), each of the type of its default
// value; the parameters not named keep their defaults.
using PositionEncodingParameters = std::vector<std::pair<std::string, ParameterValue>>;

// Rows [positions, d_model], row after row, for positions first_position, first_position + 1,
// ...: float32, bit for bit the rows a model of that kind adds. Throws Error kBadInput for an
// unknown kind or one without a fixed table, d_model <= 0 or one the kind cannot use (odd for
// sinusoidal), a negative first_position or positions, a table too large to hold, or a parameter
// the kind does not have, names twice or refuses (as in a config.json's position_encoding
// object).
std::vector<float> position_encoding_table(const std::string& kind, int64_t d_model,
                                           int64_t first_position, int64_t positions,
                                           const PositionEncodingParameters& parameters = {});

}  // namespace tinyenc
