// The activations and scratch memory of a forward pass, shared by all layers (only one layer runs
// at a time) and grown, never shrunk, as inputs get larger.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/buffer.h"
#include "engine/encoder_config.h"

namespace tinyenc {

struct Workspace {
  // Rows are tokens: B * T of a padded batch, the sum of the lengths of a packed one.
  AlignedBuffer hidden;   // [rows, D]: the running hidden state x
  AlignedBuffer sum;      // [rows, D]: a sub-layer's output plus its residual
  AlignedBuffer normed;   // [rows, D]: LN(x) in pre-LN layers
  AlignedBuffer qkv;      // [rows, 3, H, head_dim]
  AlignedBuffer scores;   // [B, H, T, T] of the largest attention call
  AlignedBuffer context;  // [rows, H, head_dim]
  AlignedBuffer ffn;      // [rows, ffn_dim]

  // attention: B * T * T of the largest attention call (of a packed batch's runs, the largest).
  void reserve(const EncoderConfig& config, int64_t tokens, int64_t attention) {
    const auto size = [](int64_t n) { return static_cast<size_t>(n); };
    const int64_t d = config.d_model;
    for (AlignedBuffer* activations : {&hidden, &sum, &normed, &context}) {
      activations->reserve(size(tokens * d));
    }
    qkv.reserve(size(3 * tokens * d));
    ffn.reserve(size(tokens * config.ffn_dim));
    scores.reserve(size(attention * config.heads));
  }
};

}  // namespace tinyenc
