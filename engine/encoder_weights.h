// The weights of an encoder, as float32 arrays in PyTorch's layouts. The engine does not own
// them (they usually point into a memory-mapped model file); `storage` keeps alive whatever
// the loader allocated (converted F16/BF16 tensors, for instance).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "engine/dtype.h"
#include "engine/pe/position_encoding.h"

namespace tinyenc {

// y = x W^T + b with W [out_features, in_features] (torch.nn.Linear); bias may be null.
// The weight comes either as float32 (`weight`), or already converted by `tinyenc convert`:
// bfloat16 bits (`weight_bf16`), or symmetric int8 with one float scale per output channel
// (`weight_s8`, `weight_scales`: weight[o][i] = weight_s8[o][i] * weight_scales[o]). Exactly one
// form is set; the engine converts it to the dtype it computes in.
struct LinearWeights {
  const float* weight = nullptr;
  const uint16_t* weight_bf16 = nullptr;
  const int8_t* weight_s8 = nullptr;
  const float* weight_scales = nullptr;  // [out_features], with weight_s8
  const float* bias = nullptr;
  int64_t out_features = 0;
  int64_t in_features = 0;
};

// A LinearWeights' matrix without its bias, as WeightMatrix and QKV stacking take it (of() and
// linear_weights() go between the two): f32, bf16 bits, or s8 with one scale per output
// channel, each the storage of that ComputeDtype (dtype_traits). Exactly one of f32, bf16 and s8
// is set.
struct LinearSource {
  const float* f32 = nullptr;
  const uint16_t* bf16 = nullptr;
  const int8_t* s8 = nullptr;
  const float* scales = nullptr;  // [out_features], with s8
  int64_t out_features = 0;
  int64_t in_features = 0;

  static LinearSource of(const LinearWeights& weights);
  static LinearSource of_f32(const float* weight, int64_t out_features, int64_t in_features);
  // A matrix stored as `form` stores it (dtype_traits(form)): scales with the forms that have
  // them.
  static LinearSource in_form(ComputeDtype form, const void* values, const float* scales,
                              int64_t out_features, int64_t in_features);
  // The form set (the first, f32 before bf16 before s8, when several are; nullopt when none is)
  // and its values.
  std::optional<ComputeDtype> form() const;
  const void* values() const;
  // weight[o][i] as float (s8 dequantized, bf16 widened), without building the matrix.
  float at(int64_t o, int64_t i) const;
};

// `source` with a bias, as the encoder takes a Linear.
LinearWeights linear_weights(const LinearSource& source, const float* bias);

struct NormWeights {
  const float* gamma = nullptr;  // [d_model]
  const float* beta = nullptr;   // [d_model]
};

// One encoder layer. query/key/value are separate as in Hugging Face checkpoints; the engine
// concatenates them into one QKV matrix when it is built.
struct LayerWeights {
  LinearWeights query, key, value;
  LinearWeights attention_output;
  NormWeights attention_norm;  // post-LN: after attention + residual; pre-LN: before attention
  LinearWeights ffn_in;        // [ffn_dim, d_model]
  LinearWeights ffn_out;       // [d_model, ffn_dim]
  NormWeights ffn_norm;        // post-LN: after FFN + residual; pre-LN: before the FFN
};

// position_embeddings and relative_bias come from PositionEncodingWeights
// (engine/pe/position_encoding.h).
struct EncoderWeights : PositionEncodingWeights {
  const float* token_embeddings = nullptr;       // [vocab_size, d_model]
  const float* token_type_embeddings = nullptr;  // [type_vocab_size, d_model] or null
  NormWeights embedding_norm;                    // when config.embedding_layer_norm
  std::vector<LayerWeights> layers;
  NormWeights final_norm;    // when config.final_layer_norm
  LinearWeights pooler;      // when config.has_pooler: [d_model, d_model]
  LinearWeights classifier;  // when config.num_labels > 0: [num_labels, d_model]
  std::shared_ptr<const void> storage;
};

}  // namespace tinyenc
