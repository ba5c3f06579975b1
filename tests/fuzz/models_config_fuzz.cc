// libFuzzer target: arbitrary bytes as the text of a config.json. Any outcome other than a
// ModelConfig or std::invalid_argument naming "fuzz/config.json" is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include "models/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const tinyenc::ModelConfig config = tinyenc::parse_model_config(text, "fuzz/config.json");
    // What a successful parse promises.
    const tinyenc::EncoderConfig& encoder = config.encoder;
    if (encoder.d_model <= 0 || encoder.heads <= 0 || encoder.d_model % encoder.heads != 0 ||
        encoder.layers <= 0 || encoder.vocab_size <= 0 ||
        encoder.num_labels != static_cast<int64_t>(config.labels.size())) {
      std::abort();
    }
  } catch (const std::invalid_argument& e) {
    if (std::string_view(e.what()).substr(0, 18) != "fuzz/config.json: ") std::abort();
  }
  return 0;
}
