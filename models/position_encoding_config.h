// The `position_encoding` object of a tinyenc-family config.json:
//   {"kind": "sinusoidal", "layout": "interleaved", "base": 10000, "scale_embeddings": false}
//   {"kind": "learned", "max_positions": 512}          (+ "padding_idx": 1 for RoBERTa offsets)
//   {"kind": "rope", "pairing": "half", "theta": 10000, "rotary_dim": 32}
//   {"kind": "alibi"}
//   {"kind": "relative", "num_buckets": 32, "max_distance": 128}
//   {"kind": "none"}
// Unknown keys are errors, so that a misspelt parameter is never silently ignored.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "engine/pe/position_encoding.h"

namespace tinyenc {

// `where` names the file and field for error messages, e.g. "model/config.json: position_encoding".
// Throws std::invalid_argument("<where>.<field>: <what>") on any problem.
PositionEncodingConfig parse_position_encoding_config(const nlohmann::json& object,
                                                      const std::string& where);

}  // namespace tinyenc
