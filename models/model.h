// Loading a model folder (Hugging Face layout: config.json + model.safetensors) into the
// engine's EncoderConfig and EncoderWeights.
//
// Every tensor the configuration needs must be present with the shape config.json implies;
// errors name the file and the tensor with its expected and actual shape. Tensors the family
// does not use are listed, not silently dropped: the caller warns about them.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/encoder_weights.h"
#include "models/config.h"
#include "models/dtype_choice.h"
#include "models/safetensors.h"
#include "models/tensor_binder.h"

namespace tinyenc {

struct LoadedModel {
  ModelConfig config;        // config.encoder.dtype: the dtype chosen (models/dtype_choice.h)
  std::string dtype_reason;  // why that dtype
  std::optional<ComputeDtype> stored_dtype;  // a converted folder's, from its metadata
  // Points into the mapped model.safetensors (F32) or into converted copies (F16, BF16,
  // misaligned F32); weights.storage keeps both alive, so a LoadedModel may be moved freely and
  // the weights outlive it as long as someone holds the storage.
  EncoderWeights weights;
  // In the file, not used by this family: typically a task head tinyenc does not run
  // (cls.predictions.* of BertForMaskedLM). Worth a warning.
  std::vector<std::string> unused_tensors;
  // In the file and deliberately skipped: buffers (embeddings.position_ids) and tables the
  // engine computes itself (RoFormer's embed_positions). Not worth a warning.
  std::vector<std::string> ignored_tensors;
  // The Linear weights and embeddings, by tensor name: what `tinyenc convert` converts.
  std::map<std::string, TensorRole> tensor_roles;
};

// Throws std::runtime_error when a file cannot be read and std::invalid_argument when its
// content is wrong, with a message "<path>: <field or tensor>: <what>". `dtype` is what the
// caller asked for: "", "f32", "bf16", "int8" or "auto" (models/dtype_choice.h); an unknown name
// or a dtype this CPU cannot run throws std::invalid_argument.
LoadedModel load_model(const std::filesystem::path& dir, std::string_view dtype = "");

// The weights of an already parsed configuration, from an already opened file.
LoadedModel bind_model(ModelConfig config, std::shared_ptr<SafetensorsFile> file,
                       std::string_view dtype = "");

}  // namespace tinyenc
