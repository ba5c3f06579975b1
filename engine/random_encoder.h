// Random-weight encoders: the benchmark presets (so anyone can measure without a model file)
// and test models. Weights are N(0, 1/in_features) for matrices, near 1 / 0 for LayerNorm.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "engine/encoder_config.h"
#include "engine/encoder_weights.h"

namespace tinyenc {

// tiny (d 128, 2 heads, 2 layers, ffn 512), mini (256, 4, 4, 1024), small (512, 8, 4, 2048),
// base (768, 12, 12, 3072): BERT-style post-LN, GELU, learned positions (512), vocabulary 30522,
// two token types, CLS pooling, no head.
std::optional<EncoderConfig> preset_config(std::string_view name);

// Weights for every tensor `config` can use (pooler and classifier included), owned by the
// returned storage.
EncoderWeights random_encoder_weights(const EncoderConfig& config, uint32_t seed);

}  // namespace tinyenc
