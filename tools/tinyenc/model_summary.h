// What a model folder holds (<tinyenc/info.h>'s ModelInfo), for people (`tinyenc info -m`,
// `tinyenc run --verbose`) and as JSON: the family, the shape of the encoder, the position
// encoding with all its parameters, the tokenizer and its special-token template, and the weights
// (parameters, bytes and dtypes on disk).
#pragma once

#include <tinyenc/info.h>

#include <nlohmann/json.hpp>
#include <string>

namespace tinyenc::cli {

// The summary as `tinyenc info --json` writes it under "model".
nlohmann::json summarize_model(const ModelInfo& model);

// The summary as aligned "name: value" lines.
std::string summary_table(const ModelInfo& model);

// The summary in one line: "order-rope: tinyenc, 2 layers x 4 heads, d_model 64, ...".
std::string summary_line(const ModelInfo& model);

}  // namespace tinyenc::cli
