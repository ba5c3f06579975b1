// `tinyenc convert`: a model folder with its weights stored in bf16 or int8, ready to load.
//
// The output is a complete folder: every file of the input (config.json, the tokenizer, the
// sentence-transformers modules...) copied, and a model.safetensors in which
//  - int8: every Linear weight the engine multiplies (query, key, value, attention output, FFN
//    in and out, pooler, classifier) is I8 [out, in], symmetric per output channel, with
//    "<weight name>_scale" F32 [out] beside it; the word, position and token-type embeddings
//    are I8 with one scale per row ("<name>_scale" F32 [rows]);
//  - bf16: the same tensors are BF16;
// and every other tensor the model uses (LayerNorm, biases, relative position bias) is F32.
// Tensors the model does not use are copied as they are. __metadata__ records
// "tinyenc_dtype": "int8" or "bf16". The conversion is the loader's own
// (SafetensorsFile::converted, the dtype's from_f32 in engine/dtype.h), so a converted folder
// gives exactly the outputs of loading the original with that dtype.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/dtype.h"

namespace tinyenc {

struct ConversionSummary {
  uint64_t input_bytes = 0;   // the input's model.safetensors
  uint64_t output_bytes = 0;  // the output's
  int64_t converted_tensors = 0;
  // Entries of the input not copied, each "<path>: <why>" (a dangling link, a socket).
  std::vector<std::string> not_copied;
};

// Every entry of the input folder is copied under its own name, symbolic links followed as
// `cp -rL` follows them; nothing is created outside `output`.
// Writes `output` atomically: everything goes into a hidden folder beside it, renamed into place
// at the end, so an error or an interrupt leaves no half-written model. `output` must not exist
// or be an empty folder. Throws std::invalid_argument for bad input (a folder that does not
// load, one already converted, f32 asked for, `output` the input or inside it, or not empty) and
// std::runtime_error when writing fails.
ConversionSummary convert_model(const std::filesystem::path& input,
                                const std::filesystem::path& output, ComputeDtype dtype);

}  // namespace tinyenc
