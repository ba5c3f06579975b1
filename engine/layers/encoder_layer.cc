#include "engine/layers/encoder_layer.h"

namespace tinyenc {

EncoderLayer::EncoderLayer(Runtime& runtime, const StageClock& clock, const EncoderConfig& c,
                           const LayerWeights& w, const PositionEncoding& position_encoding,
                           Workspace& workspace)
    : norm_first_(c.norm_first),
      attention_(runtime, clock, c, w, position_encoding, workspace),
      attention_norm_(clock, &StageTimes::norms, runtime, w.attention_norm.gamma,
                      w.attention_norm.beta, c.d_model, c.layer_norm_eps),
      ffn_(clock, &StageTimes::ffn, runtime, c, w, workspace.ffn),
      ffn_norm_(clock, &StageTimes::norms, runtime, w.ffn_norm.gamma, w.ffn_norm.beta, c.d_model,
                c.layer_norm_eps),
      workspace_(&workspace) {}

// x = LN(x + Attention(x)); x = LN(x + FFN(x))
void EncoderLayer::post_ln(float* x, const Batch& batch) {
  float* sum = workspace_->sum.data();
  attention_(x, batch, sum, /*residual=*/x);
  attention_norm_(sum, batch.tokens(), x);
  ffn_(x, batch.tokens(), sum, /*residual=*/x);
  ffn_norm_(sum, batch.tokens(), x);
}

// h = x + Attention(LN(x)); x = h + FFN(LN(h))
void EncoderLayer::pre_ln(float* x, const Batch& batch) {
  float* h = workspace_->sum.data();
  float* normed = workspace_->normed.data();
  attention_norm_(x, batch.tokens(), normed);
  attention_(normed, batch, h, /*residual=*/x);
  ffn_norm_(h, batch.tokens(), normed);
  ffn_(normed, batch.tokens(), x, /*residual=*/h);
}

}  // namespace tinyenc
