// The activations and scratch memory of a forward pass, shared by all layers (only one layer runs
// at a time) and grown, never shrunk, as inputs get larger.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/buffer.h"
#include "engine/encoder_config.h"

namespace tinyenc {

struct Workspace {
  AlignedBuffer hidden;   // [B, T, D]: the running hidden state x
  AlignedBuffer sum;      // [B, T, D]: a sub-layer's output plus its residual
  AlignedBuffer normed;   // [B, T, D]: LN(x) in pre-LN layers
  AlignedBuffer qkv;      // [B, T, 3, H, head_dim]
  AlignedBuffer scores;   // [B, H, T, T]
  AlignedBuffer context;  // [B, T, H, head_dim]
  AlignedBuffer ffn;      // [B, T, ffn_dim]

  void reserve(const EncoderConfig& config, int64_t batch, int64_t seq) {
    const auto size = [](int64_t n) { return static_cast<size_t>(n); };
    const int64_t tokens = batch * seq, d = config.d_model;
    for (AlignedBuffer* activations : {&hidden, &sum, &normed, &context}) {
      activations->reserve(size(tokens * d));
    }
    qkv.reserve(size(3 * tokens * d));
    ffn.reserve(size(tokens * config.ffn_dim));
    scores.reserve(size(batch * config.heads * seq * seq));
  }
};

}  // namespace tinyenc
