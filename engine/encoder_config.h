// The shape and behaviour of an encoder: what config.json describes, in the engine's terms.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/dtype.h"
#include "engine/pe/position_encoding.h"

namespace tinyenc {

enum class Activation { kGeluErf, kGeluTanh, kRelu };
enum class Pooling { kCls, kMean, kPooler, kNone };

std::string_view activation_name(Activation activation);
std::string_view pooling_name(Pooling pooling);

// d_model, heads and position_encoding come from EncoderShape (engine/pe/position_encoding.h).
struct EncoderConfig : EncoderShape {
  int64_t vocab_size = 0;
  int64_t layers = 0;
  int64_t ffn_dim = 0;
  int64_t type_vocab_size = 0;  // 0: no token-type embeddings
  bool norm_first = false;      // pre-LN layers (and a final LayerNorm) instead of BERT's post-LN
  bool embedding_layer_norm = true;  // LayerNorm after the embedding sum (BERT)
  bool final_layer_norm = false;     // LayerNorm after the last layer (pre-LN stacks)
  float layer_norm_eps = 1e-12f;
  Activation activation = Activation::kGeluErf;
  Pooling pooling = Pooling::kCls;
  bool has_pooler = false;                  // BERT's dense + tanh over [CLS]
  int64_t num_labels = 0;                   // 0: no classification head
  ComputeDtype dtype = ComputeDtype::kF32;  // what the matmuls compute in (engine/dtype.h)
};

// Throws std::invalid_argument naming the field when the config cannot describe a model
// (e.g. d_model % heads != 0, odd head_dim with RoPE, pooler pooling without pooler weights).
void validate(const EncoderConfig& config);

}  // namespace tinyenc
