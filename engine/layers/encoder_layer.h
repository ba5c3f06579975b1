// One Transformer encoder layer, post-LN (BERT, Vaswani et al.) or pre-LN (Xiong et al. 2020).
#pragma once

#include "engine/encoder_config.h"
#include "engine/encoder_weights.h"
#include "engine/layers/batch.h"
#include "engine/layers/feed_forward.h"
#include "engine/layers/layer_norm.h"
#include "engine/layers/self_attention.h"
#include "engine/layers/stage_times.h"
#include "engine/layers/workspace.h"
#include "engine/pe/hooks.h"

namespace tinyenc {

class EncoderLayer {
 public:
  EncoderLayer(Runtime& runtime, const StageClock& clock, const EncoderConfig& config,
               const LayerWeights& weights, const PositionEncoding& position_encoding,
               Workspace& workspace);

  // x [B, T, D] is replaced by the layer's output.
  void operator()(float* x, const Batch& batch) {
    if (norm_first_) {
      pre_ln(x, batch);
    } else {
      post_ln(x, batch);
    }
  }

  const FeedForward& feed_forward() const { return ffn_.layer(); }

 private:
  void post_ln(float* x, const Batch& batch);
  void pre_ln(float* x, const Batch& batch);

  bool norm_first_;
  SelfAttention attention_;
  Timed<LayerNorm> attention_norm_;
  Timed<FeedForward> ffn_;
  Timed<LayerNorm> ffn_norm_;
  Workspace* workspace_;
};

}  // namespace tinyenc
