// Hands out a model file's tensors by name as float32 arrays, checking each one's shape against
// what config.json implies, and keeps count of which were taken, so that the tensors a loader
// did not use can be reported instead of silently dropped.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "engine/encoder_weights.h"
#include "models/safetensors.h"

namespace tinyenc {

class TensorBinder {
 public:
  explicit TensorBinder(SafetensorsFile& file) : file_(file) {}

  bool has(const std::string& name) const { return file_.find(name) != nullptr; }

  // Throws std::invalid_argument("<file>: tensor '<name>': ...") when the tensor is missing,
  // has another shape, or a dtype that cannot be loaded.
  const float* tensor(const std::string& name, const std::vector<int64_t>& shape);
  // Null when absent; checked like tensor() when present.
  const float* optional_tensor(const std::string& name, const std::vector<int64_t>& shape);

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

 private:
  SafetensorsFile& file_;
  std::set<std::string> used_;
  std::set<std::string> ignored_;
};

}  // namespace tinyenc
