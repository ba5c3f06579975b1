#include "engine/layers/feed_forward.h"

namespace tinyenc {
namespace {

Epilogue epilogue_of(Activation activation) {
  switch (activation) {
    case Activation::kGeluTanh:
      return Epilogue::kGeluTanh;
    case Activation::kRelu:
      return Epilogue::kRelu;
    case Activation::kGeluErf:
      break;
  }
  return Epilogue::kGeluErf;
}

}  // namespace

FeedForward::FeedForward(Runtime& runtime, const EncoderConfig& c, const LayerWeights& w,
                         AlignedBuffer& hidden)
    : in_(runtime, w.ffn_in.weight, w.ffn_in.bias, c.ffn_dim, c.d_model),
      out_(runtime, w.ffn_out.weight, w.ffn_out.bias, c.d_model, c.ffn_dim),
      activation_(epilogue_of(c.activation)),
      hidden_(&hidden) {}

}  // namespace tinyenc
