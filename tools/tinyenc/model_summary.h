// What a model folder holds, for people (`tinyenc info -m`, `tinyenc run --verbose`) and as
// JSON: the family, the shape of the encoder, the position encoding with all its parameters, the
// tokenizer and its special-token template, and the weights (parameters, bytes and dtypes on
// disk).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/encoder.h"
#include "models/model.h"
#include "tokenizer/tokenizer.h"

namespace tinyenc::cli {

// `tokenizer` may be null (a folder without tokenizer files runs with --ids only). Reads the
// safetensors header of <dir>/model.safetensors again for the dtypes and byte counts.
nlohmann::json summarize_model(const std::filesystem::path& dir, const LoadedModel& model,
                               const Encoder& encoder, const SubwordTokenizer* tokenizer);

// The summary as aligned "name: value" lines.
std::string summary_table(const nlohmann::json& summary);

// The summary in one line: "order-rope: tinyenc, 2 layers x 4 heads, d_model 64, ...".
std::string summary_line(const nlohmann::json& summary);

}  // namespace tinyenc::cli
