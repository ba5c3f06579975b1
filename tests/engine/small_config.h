// The small encoder the engine tests build with random weights: 2 layers, 4 heads, d_model 32,
// 32 positions, mean pooling, 3 labels, of the given position-encoding kind.
#pragma once

#include "engine/encoder_config.h"

namespace tinyenc {

inline EncoderConfig small_config(PositionEncodingKind kind) {
  EncoderConfig c;
  c.vocab_size = 40;
  c.d_model = 32;
  c.heads = 4;
  c.layers = 2;
  c.ffn_dim = 64;
  c.position_encoding.kind = kind;
  c.position_encoding.max_positions = 32;
  c.position_encoding.relative = {8, 16};
  c.pooling = Pooling::kMean;
  c.num_labels = 3;
  return c;
}

}  // namespace tinyenc
