// libFuzzer target: arbitrary bytes as a safetensors file, parsed from memory, every loadable
// tensor widened to float32, then bound as the weights of a fixed tiny tinyenc model.
// Any outcome other than success or std::invalid_argument (a crash, a sanitizer report, another
// exception type, a hang) is a bug.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>

#include "models/config.h"
#include "models/model.h"
#include "models/safetensors.h"

namespace {

// d_model 4, 2 heads, 1 layer, vocab 8, a learned table of 4 rows: tensors small enough that
// the fuzzer can write a matching file (the seed corpus has one).
const tinyenc::ModelConfig& fixed_config() {
  static const tinyenc::ModelConfig config = tinyenc::parse_model_config(
      R"({"model_type": "tinyenc", "vocab_size": 8, "hidden_size": 4, "num_attention_heads": 2,
          "num_hidden_layers": 1, "intermediate_size": 4, "embedding_layer_norm": false,
          "position_encoding": {"kind": "learned", "max_positions": 4}})",
      "fuzz/config.json");
  return config;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  std::shared_ptr<tinyenc::SafetensorsFile> file;
  try {
    file = std::make_shared<tinyenc::SafetensorsFile>(bytes, "fuzz.safetensors");
  } catch (const std::invalid_argument&) {
    return 0;
  }
  float sum = 0.0f;
  for (const tinyenc::TensorInfo& tensor : file->tensors()) {
    try {
      const float* values = file->float32(tensor);
      for (uint64_t i = 0; i < tensor.elements; ++i) sum += values[i];  // reads must stay inside
    } catch (const std::invalid_argument&) {
    }
  }
  try {
    const tinyenc::LoadedModel model = tinyenc::bind_model(fixed_config(), file);
    sum += model.weights.token_embeddings[8 * 4 - 1];
  } catch (const std::invalid_argument&) {
  }
  volatile float sink = sum;
  (void)sink;
  return 0;
}
