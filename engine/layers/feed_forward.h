// The position-wise feed-forward network: y = act(x W_in^T + b_in) W_out^T + b_out (+ residual),
// the activation fused into the first matmul and the residual add into the second.
#pragma once

#include <cstdint>

#include "engine/buffer.h"
#include "engine/encoder_config.h"
#include "engine/encoder_weights.h"
#include "engine/layers/linear.h"

namespace tinyenc {

class FeedForward {
 public:
  FeedForward(Runtime& runtime, const EncoderConfig& config, const LayerWeights& weights,
              AlignedBuffer& hidden);

  void operator()(const float* x, int64_t rows, float* y, const float* residual) {
    float* hidden = hidden_->data();
    in_(x, rows, hidden, activation_);
    out_(hidden, rows, y, Epilogue::kNone, residual);
  }

  const Linear& in() const { return in_; }

 private:
  Linear in_;
  Linear out_;
  Epilogue activation_;
  AlignedBuffer* hidden_;  // [rows, ffn_dim]
};

}  // namespace tinyenc
