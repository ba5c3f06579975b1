#include "engine/layers/self_attention.h"

#include <algorithm>
#include <vector>

namespace tinyenc {
namespace {

// One fused QKV matmul: the three [D, D] matrices (and biases) stacked once, at load.
std::vector<LinearSource> qkv_parts(const LayerWeights& w) {
  return {LinearSource::of(w.query), LinearSource::of(w.key), LinearSource::of(w.value)};
}

std::vector<float> stacked_biases(const LayerWeights& w, int64_t d) {
  std::vector<float> bias(static_cast<size_t>(3 * d), 0.0f);
  int64_t part = 0;
  for (const LinearWeights* linear : {&w.query, &w.key, &w.value}) {
    if (linear->bias) std::copy(linear->bias, linear->bias + d, bias.begin() + part * d);
    ++part;
  }
  return bias;
}

// Attention's products in bf16 for the dtypes that already round to bf16 or coarser, where
// oneDNN runs bf16 matmuls (ops::AttentionCore says what it costs and saves).
bool bf16_attention(ComputeDtype dtype) {
  return dtype != ComputeDtype::kF32 && dtype_unsupported_reason(ComputeDtype::kBF16).empty();
}

}  // namespace

SelfAttention::SelfAttention(Runtime& runtime, const StageClock& clock, const EncoderConfig& c,
                             const LayerWeights& w, const PositionEncoding& position_encoding,
                             Workspace& workspace)
    : qkv_weight_(qkv_parts(w)),
      qkv_bias_(stacked_biases(w, c.d_model)),
      qkv_(clock, &StageTimes::qkv, runtime, qkv_weight_.source(), qkv_bias_.data(), c.dtype),
      attend_(clock, &StageTimes::attention, runtime, c.heads, c.head_dim(), position_encoding,
              workspace.scores, bf16_attention(c.dtype)),
      output_(clock, &StageTimes::output_projection, runtime, w.attention_output, c.dtype),
      workspace_(&workspace) {
  // Converted to another dtype, the stacked matrix was only a step on the way (an f32 stack
  // quantized to int8 would otherwise stay beside its s8 copy for the model's lifetime).
  if (!qkv_.layer().keeps_weight_source()) qkv_weight_.release();
}

void SelfAttention::operator()(const float* x, const Batch& batch, float* y,
                               const float* residual) {
  float* qkv = workspace_->qkv.data();
  float* context = workspace_->context.data();
  qkv_(x, batch.tokens(), qkv);
  attend_(qkv, batch, context);
  output_(context, batch.tokens(), y, Epilogue::kNone, residual);
}

}  // namespace tinyenc
