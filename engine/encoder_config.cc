#include "engine/encoder_config.h"

#include <stdexcept>
#include <string>

namespace tinyenc {

std::string_view activation_name(Activation activation) {
  switch (activation) {
    case Activation::kGeluErf:
      return "gelu";
    case Activation::kGeluTanh:
      return "gelu_tanh";
    case Activation::kRelu:
      return "relu";
  }
  return "unknown";
}

std::string_view pooling_name(Pooling pooling) {
  switch (pooling) {
    case Pooling::kCls:
      return "cls";
    case Pooling::kMean:
      return "mean";
    case Pooling::kPooler:
      return "pooler";
    case Pooling::kNone:
      return "none";
  }
  return "unknown";
}

void validate(const EncoderConfig& c) {
  const auto fail = [](const std::string& field, const std::string& what) {
    throw std::invalid_argument(field + ": " + what);
  };
  if (c.vocab_size <= 0) fail("vocab_size", "must be > 0");
  if (c.d_model <= 0) fail("hidden_size", "must be > 0");
  if (c.heads <= 0) fail("num_attention_heads", "must be > 0");
  if (c.d_model % c.heads != 0) {
    fail("hidden_size", std::to_string(c.d_model) + " is not divisible by num_attention_heads " +
                            std::to_string(c.heads));
  }
  if (c.layers < 0) fail("num_hidden_layers", "must be >= 0");
  if (c.ffn_dim <= 0) fail("intermediate_size", "must be > 0");
  if (c.type_vocab_size < 0) fail("type_vocab_size", "must be >= 0");
  const PositionEncodingConfig& pe = c.position_encoding;
  switch (pe.kind) {
    case PositionEncodingKind::kSinusoidal:
      if (c.d_model % 2 != 0) fail("position_encoding", "sinusoidal needs an even hidden_size");
      break;
    case PositionEncodingKind::kLearned:
      if (pe.max_positions <= pe.padding_idx + 1) {
        fail("max_position_embeddings", "leaves no rows after padding_idx");
      }
      break;
    case PositionEncodingKind::kRope:
      if (c.head_dim() % 2 != 0) {
        fail("position_encoding",
             "rope needs an even head_dim, got " + std::to_string(c.head_dim()));
      }
      if (c.rotary_dim() % 2 != 0 || c.rotary_dim() > c.head_dim()) {
        fail("position_encoding.rotary_dim",
             "must be even and <= head_dim (" + std::to_string(c.head_dim()) + ")");
      }
      break;
    default:
      break;
  }
  if (c.pooling == Pooling::kPooler && !c.has_pooler)
    fail("pooling", "'pooler' needs pooler weights");
  if (c.num_labels < 0) fail("num_labels", "must be >= 0");
  if (!(c.layer_norm_eps > 0.0f)) fail("layer_norm_eps", "must be > 0");
}

}  // namespace tinyenc
