#include "engine/encoder_config.h"

#include <stdexcept>
#include <string>

#include "engine/pe/registry.h"

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
  validate_position_encoding(c);
  // Stricter than the kind itself (which rotates an even rotary_dim inside any head): the engine
  // has only ever run RoPE on even heads, and refuses the rest until that is tested.
  if (c.position_encoding.kind == PositionEncodingKind::kRope && c.head_dim() % 2 != 0) {
    fail("position_encoding", "rope needs an even head_dim, got " + std::to_string(c.head_dim()));
  }
  if (c.pooling == Pooling::kPooler && !c.has_pooler)
    fail("pooling", "'pooler' needs pooler weights");
  if (c.num_labels < 0) fail("num_labels", "must be >= 0");
  if (!(c.layer_norm_eps > 0.0f)) fail("layer_norm_eps", "must be > 0");
}

}  // namespace tinyenc
