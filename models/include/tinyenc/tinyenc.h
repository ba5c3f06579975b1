// tinyenc as a library: a model folder (Hugging Face layout: config.json, model.safetensors and
// its tokenizer) loaded once, then texts in, embeddings and labels out.
//
//   tinyenc::Model model = tinyenc::Model::load("models/pretrained/order-rope");
//   std::vector<std::vector<float>> vectors = model.embed({"我打你", "你打我"});
//   tinyenc::Classification first = model.classify({"我打你"})[0];
//
// Only the standard library appears here: the engine (oneDNN) and the tokenizers stay behind
// the Model, so this header and its types are what stays stable.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace tinyenc {

// Everything tinyenc throws. kBadInput: the caller's input is wrong (a folder that cannot be
// read, a malformed file, a text too long, an id outside the vocabulary, an unknown option);
// the message names the file and the field. kInternal: tinyenc failed (out of memory, a bug).
class Error : public std::runtime_error {
 public:
  enum class Kind { kBadInput, kInternal };
  Error(Kind kind, const std::string& message);
  Kind kind() const noexcept { return kind_; }

 private:
  Kind kind_;
};

struct Options {
  std::string pooling;     // "cls", "mean", "pooler" or "none"; empty: config.json's
  bool normalize = false;  // L2-normalize the embeddings
  bool truncate = false;   // cut texts longer than the model allows instead of refusing them
  // Threads of the forward pass, 0 to 4 per CPU; 0: one per logical CPU this process may run
  // on (its affinity mask, as sched_getaffinity gives it; hyper-threads count), as `tinyenc run
  // --threads 0`. One OpenMP pool serves the whole process, so this is process-wide: the last
  // Model loaded sets it.
  int threads = 0;
  // What the matmuls compute in: "f32", "bf16", "int8", "auto" (the fastest that meets
  // tinyenc's accuracy gates on this CPU), or "" for the folder's own: int8 or bf16 for a folder
  // written by `tinyenc convert` (when this CPU runs it), f32 otherwise. One this CPU cannot run
  // is Error kBadInput naming the missing CPU feature.
  std::string dtype;
  // K added to every token's position id, as if each text began K tokens later (0 to 65536): the
  // shift-invariance experiment. Relative encodings (RoPE, ALiBi, T5) give the same outputs,
  // absolute ones (sinusoidal, learned) others; a learned table refuses texts that K pushes past
  // its end (Error kBadInput).
  int64_t position_offset = 0;
};

struct Classification {
  std::string label;  // config.json's id2label name, or LABEL_<id>
  int64_t id = -1;
  std::vector<float> probabilities;  // softmax over every label, in id order
};

// One input's outputs from forward().
struct Output {
  std::vector<float> embedding;  // pooled [dimension()]; empty with pooling none
  std::vector<float> logits;     // [labels().size()]; empty without a classification head
  std::vector<float> hidden;     // last hidden states, [tokens, dimension()]
};

// A Model reuses its buffers from one call to the next: call it from one thread at a time (or
// load one per thread).
class Model {
 public:
  // Loads and checks the folder; throws Error.
  static Model load(const std::string& folder, const Options& options = {});

  Model(Model&&) noexcept;
  Model& operator=(Model&&) noexcept;
  ~Model();

  // One pooled embedding per text (the model's pooling, or Options::pooling).
  std::vector<std::vector<float>> embed(const std::vector<std::string>& texts);
  // The label of each text; Error kBadInput for a model without a classification head.
  std::vector<Classification> classify(const std::vector<std::string>& texts);
  // The encoder on token ids as they are (no tokenizer, no special tokens added).
  std::vector<Output> forward(const std::vector<std::vector<int32_t>>& ids);

  int64_t dimension() const;                       // d_model, the length of an embedding
  const std::vector<std::string>& labels() const;  // by id; empty without a head
  int64_t max_tokens() const;  // the longest input, special tokens included; 0: no limit
  std::string dtype() const;   // the dtype in use: "f32", "bf16" or "int8"

 private:
  struct Impl;
  friend struct ModelAccess;  // the rest of the public library (models/public_model_impl.h)
  explicit Model(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tinyenc
