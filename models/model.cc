#include "models/model.h"

#include <stdexcept>
#include <system_error>
#include <utility>

#include "engine/encoder_config.h"
#include "engine/io/regular_file.h"
#include "models/model_family.h"
#include "models/tensor_binder.h"

namespace tinyenc {

LoadedModel bind_model(ModelConfig config, std::shared_ptr<SafetensorsFile> file,
                       std::string_view dtype) {
  const ModelFamily* family = find_model_family(config.family);
  if (!family) throw std::invalid_argument("unknown model family '" + config.family + "'");
  LoadedModel model;
  model.stored_dtype = stored_dtype(*file);
  const DtypeChoice choice = choose_dtype(dtype, model.stored_dtype);
  config.encoder.dtype = choice.dtype;
  model.dtype_reason = choice.reason;
  TensorBinder tensors(*file, choice.dtype);
  family->bind_weights(tensors, config, model.weights);
  model.weights.storage = std::move(file);
  model.config = std::move(config);
  model.unused_tensors = tensors.unused();
  model.ignored_tensors = tensors.ignored();
  model.tensor_roles = tensors.roles();
  return model;
}

LoadedModel load_model(const std::filesystem::path& dir, std::string_view dtype) {
  // file_type_of, not std::filesystem::exists: the throwing overloads would report a loop of
  // symbolic links as a raw "filesystem error: status: ...".
  const std::filesystem::file_type type = file_type_of(dir);
  if (type == std::filesystem::file_type::not_found) {
    throw std::runtime_error(dir.string() + ": model folder not found");
  }
  if (type != std::filesystem::file_type::directory) {
    throw std::runtime_error(dir.string() +
                             ": not a folder (a model is a folder with config.json and "
                             "model.safetensors)");
  }
  ModelConfig config = read_model_config(dir);
  const std::filesystem::path weights_path = dir / "model.safetensors";
  std::error_code error;
  if (file_type_of(weights_path) == std::filesystem::file_type::not_found &&
      std::filesystem::exists(dir / "pytorch_model.bin", error)) {
    throw std::runtime_error(weights_path.string() +
                             ": not found; the folder has pytorch_model.bin, which "
                             "tools/convert_checkpoint.py turns into model.safetensors");
  }
  LoadedModel model =
      bind_model(std::move(config), std::make_shared<SafetensorsFile>(weights_path), dtype);
  // The engine's own rules, as a backstop behind the checks above: a model that loads must also
  // build. Its messages name the field; add the file.
  try {
    validate(model.config.encoder);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument((dir / "config.json").string() + ": " + e.what());
  }
  return model;
}

}  // namespace tinyenc
