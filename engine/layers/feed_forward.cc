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
    : in_(runtime, w.ffn_in, c.dtype),
      out_(runtime, w.ffn_out, c.dtype),
      activation_(epilogue_of(c.activation)),
      hidden_(&hidden) {}

}  // namespace tinyenc
