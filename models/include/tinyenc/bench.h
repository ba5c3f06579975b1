// Timing the forward pass: a model of a preset's shape with random weights (no model file
// needed), or a model folder's encoder alone, run on token ids with the wall time of each stage.
//
//   tinyenc::Options options;
//   options.dtype = "int8";
//   tinyenc::Model model = tinyenc::random_model("small", "rope", options);
//   std::vector<int32_t> ids(8 * 128, 1);                      // 8 sequences of 128 tokens
//   tinyenc::ForwardTiming timing = tinyenc::time_forward(model, ids, 8);
#pragma once

#include <tinyenc/info.h>
#include <tinyenc/tinyenc.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tinyenc {

// The presets of random_model(): "tiny" (d_model 128, 2 heads, 2 layers, ffn 512), "mini"
// (256, 4, 4, 1024), "small" (512, 8, 4, 2048), "base" (768, 12, 12, 3072). BERT-style post-LN
// with GELU, 512 positions, a vocabulary of 30522, two token types, CLS pooling, no head.
std::vector<std::string> random_presets();

// A Model of `preset`'s shape with `position_encoding` (one of position_encoding_kinds() in
// <tinyenc/info.h>), its weights drawn from `seed` (matrices N(0, 1/in_features), LayerNorms
// near 1 and 0): the same seed gives the same weights. It has no tokenizer: forward() and
// time_forward() run it on ids. Options as for Model::load (dtype "" is f32), except pooling,
// which must stay empty (the preset pools CLS). Throws Error kBadInput for an unknown preset or
// kind, a pooling, or a dtype this CPU cannot run.
Model random_model(const std::string& preset, const std::string& position_encoding = "learned",
                   const Options& options = {}, uint32_t seed = 42);

// A model folder's encoder alone, from config.json and model.safetensors: no tokenizer (a
// folder without one loads too), so forward() and time_forward() run it on ids; no warning about
// unused tensors. Options as for Model::load, except pooling, which must stay empty (config.json's
// own). Throws as Model::load.
Model load_encoder(const std::string& folder, const Options& options = {});

// Seconds of one forward pass, in all and per stage. The stages do not cover everything (the
// padding, the bookkeeping between them), so their sum is at most `seconds`.
struct ForwardTiming {
  double seconds = 0;            // wall time of the whole pass
  double embeddings = 0;         // token embeddings and the position encoding
  double qkv = 0;                // the query, key and value projections
  double attention = 0;          // scores, softmax (and the PE's biases) and the weighted sum
  double output_projection = 0;  // attention's output projection
  double ffn = 0;                // the feed-forward blocks
  double norms = 0;              // the LayerNorms and residual additions
  double head = 0;               // pooling, pooler and classifier
  double stages() const {
    return embeddings + qkv + attention + output_projection + ffn + norms + head;
  }
};

// Runs `model` once on `batch` sequences of ids.size() / batch ids each (row after row, every
// sequence full length, no padding) and times it; the outputs are dropped. Throws Error
// kBadInput for ids that do not split into `batch` sequences, an id outside the vocabulary, or
// sequences longer than the model allows.
ForwardTiming time_forward(Model& model, const std::vector<int32_t>& ids, int64_t batch);

// What a Model::Stream did so far, for `tinyenc bench --corpus`: how much padding the sorting
// and packing saved, and where the time went.
struct StreamStats {
  size_t texts = 0;             // texts whose results went out
  int64_t tokens = 0;           // their tokens as the tokenizer gives them
  int64_t run_tokens = 0;       // real tokens the encoder saw (chunk windows, truncated texts)
  int64_t computed_tokens = 0;  // what the encoder computed, padding included
  int64_t chunked_texts = 0;    // texts split into windows
  int64_t chunks = 0;           // windows run for those texts
  uint64_t bytes = 0;           // the texts' bytes, a newline each
  double tokenize_seconds = 0;
  ForwardTiming stages;  // summed over every batch (`seconds` left 0)
  // The computed tokens of fixed batches of 32 in input order, unsorted, each padded to its
  // longest: what plain batching would have cost.
  int64_t unsorted_32_computed_tokens = 0;
};
StreamStats stream_stats(const Model::Stream& stream);

// oneDNN's implementation of the first layer's feed-forward matmul ("gemm:jit",
// "brgconv_1x1:avx512_core", ...), for benchmark tables; empty before the first forward pass.
std::string matmul_implementation(const Model& model);

// Bytes of activations one forward pass of `batch` sequences of `tokens` tokens holds in a model
// of `model`'s shape (the attention scores and about a dozen hidden-sized buffers).
double forward_memory_bytes(const ModelInfo& model, int64_t batch, int64_t tokens);

// Throws Error kBadInput, naming `what` and both sizes, when forward_memory_bytes() exceeds
// 90% of this machine's memory: refused in one line rather than killed halfway through.
void check_forward_memory(const ModelInfo& model, int64_t batch, int64_t tokens,
                          const std::string& what);

}  // namespace tinyenc
