// Hands out a model file's tensors by name, checking each one's shape against what config.json
// implies, and keeps count of which were taken, so that the tensors a loader did not use can be
// reported instead of silently dropped.
//
// A file written by `tinyenc convert` holds some tensors converted (its safetensors __metadata__
// says "tinyenc_dtype": "int8" or "bf16"):
//  - int8: every Linear weight as I8 [out, in], symmetric per output channel, with
//    "<weight name>_scale" F32 [out] beside it (weight = I8 value x scale of its row); the
//    word, position and token-type embeddings the same way with one scale per row;
//  - bf16: Linear weights and embeddings as BF16.
// LayerNorm weights, biases and every other tensor stay F32. A Linear weight goes to the engine
// in the form the compute dtype wants when the file has it (I8 + scales for int8, BF16 bits for
// bf16, pointing into the mapped file), as float32 otherwise, and the engine converts it
// (WeightMatrix). Embeddings are always float32 (the embedding is a gather, not a matmul),
// rounded here as `tinyenc convert` would store them when the compute dtype is int8 or bf16.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/dtype.h"
#include "engine/encoder_weights.h"
#include "models/safetensors.h"

namespace tinyenc {

// What the engine does with a tensor: what `tinyenc convert` may convert.
enum class TensorRole { kLinearWeight, kEmbedding, kOther };

// The suffix of a quantized tensor's scales: "<name>_scale".
inline constexpr std::string_view kScaleSuffix = "_scale";

// The dtype a converted file records, from its __metadata__ "tinyenc_dtype": nullopt for a float
// checkpoint. Throws std::invalid_argument naming the file for a value other than int8 or bf16.
std::optional<ComputeDtype> stored_dtype(const SafetensorsFile& file);

class TensorBinder {
 public:
  // `dtype` is what the engine will compute in; the file's quantized tensors and their scales
  // are checked here (every I8 tensor 2-D with its scale; every scale F32 [rows], finite and
  // positive, of an I8 tensor; I8 only in a file whose metadata says int8).
  TensorBinder(SafetensorsFile& file, ComputeDtype dtype);

  bool has(const std::string& name) const { return file_.find(name) != nullptr; }

  // A float tensor (F32, F16 or BF16, as float32). Throws std::invalid_argument("<file>: tensor
  // '<name>': ...") when the tensor is missing, has another shape, or another dtype.
  const float* tensor(const std::string& name, const std::vector<int64_t>& shape);
  // Null when absent; checked like tensor() when present.
  const float* optional_tensor(const std::string& name, const std::vector<int64_t>& shape);
  // An embedding table [rows, d_model]: a float tensor, or I8 with scales (dequantized).
  const float* embedding(const std::string& name, const std::vector<int64_t>& shape);

  // torch.nn.Linear: <name>.weight [out, in] and <name>.bias [out].
  LinearWeights linear(const std::string& name, int64_t out_features, int64_t in_features);
  // torch.nn.LayerNorm: <name>.weight and <name>.bias [size], or the legacy (TensorFlow
  // conversion) names <name>.gamma and <name>.beta.
  NormWeights norm(const std::string& name, int64_t size);

  // Marks a tensor, when present, as known and not needed at run time (a buffer such as
  // position_ids, or a table the engine computes itself).
  void ignore(const std::string& name);

  // Tensors in the file that no one asked for, or that were ignored; sorted by name.
  std::vector<std::string> unused() const;
  std::vector<std::string> ignored() const;
  // The Linear weights and embeddings taken, by name (scales not included).
  const std::map<std::string, TensorRole>& roles() const { return roles_; }

 private:
  const TensorInfo& checked(const std::string& name, const std::vector<int64_t>& shape);
  const float* scales_of(const TensorInfo& tensor);
  [[noreturn]] void fail(const std::string& name, const std::string& what) const;

  SafetensorsFile& file_;
  ComputeDtype dtype_;
  std::optional<ComputeDtype> stored_;
  std::set<std::string> used_;
  std::set<std::string> ignored_;
  std::map<std::string, TensorRole> roles_;
};

}  // namespace tinyenc
