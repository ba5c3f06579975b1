// Multi-head self-attention: one fused QKV projection, scaled dot-product attention over the heads
// (with the position encoding's hooks), and the output projection with the residual added.
#pragma once

#include <vector>

#include "engine/encoder_config.h"
#include "engine/encoder_weights.h"
#include "engine/layers/batch.h"
#include "engine/layers/linear.h"
#include "engine/layers/scaled_dot_product_attention.h"
#include "engine/layers/stage_times.h"
#include "engine/layers/workspace.h"
#include "engine/pe/hooks.h"

namespace tinyenc {

class SelfAttention {
 public:
  SelfAttention(Runtime& runtime, const StageClock& clock, const EncoderConfig& config,
                const LayerWeights& weights, const PositionEncoding& position_encoding,
                Workspace& workspace);
  SelfAttention(const SelfAttention&) = delete;
  SelfAttention& operator=(const SelfAttention&) = delete;

  // y[B, T, D] = residual + Attention(x) W_o^T + b_o
  void operator()(const float* x, const Batch& batch, float* y, const float* residual);

 private:
  // [3D, D]: query, key and value rows stacked; freed once qkv_ holds a converted copy.
  StackedSource qkv_weight_;
  std::vector<float> qkv_bias_;  // [3D]
  Timed<Linear> qkv_;
  Timed<ScaledDotProductAttention> attend_;
  Timed<Linear> output_;
  Workspace* workspace_;
};

}  // namespace tinyenc
