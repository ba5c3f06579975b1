#include "models/tensor_binder.h"

#include <stdexcept>

namespace tinyenc {

const float* TensorBinder::optional_tensor(const std::string& name,
                                           const std::vector<int64_t>& shape) {
  const TensorInfo* info = file_.find(name);
  if (!info) return nullptr;
  if (info->shape != shape) {
    throw std::invalid_argument(file_.name() + ": tensor '" + name + "': expected shape " +
                                shape_string(shape) + " from config.json, got " +
                                shape_string(info->shape));
  }
  used_.insert(name);
  return file_.float32(*info);
}

const float* TensorBinder::tensor(const std::string& name, const std::vector<int64_t>& shape) {
  const float* data = optional_tensor(name, shape);
  if (!data) {
    throw std::invalid_argument(file_.name() + ": tensor '" + name + "': missing (expected shape " +
                                shape_string(shape) + ")");
  }
  return data;
}

LinearWeights TensorBinder::linear(const std::string& name, int64_t out_features,
                                   int64_t in_features) {
  LinearWeights linear;
  linear.weight = tensor(name + ".weight", {out_features, in_features});
  linear.bias = tensor(name + ".bias", {out_features});
  linear.out_features = out_features;
  linear.in_features = in_features;
  return linear;
}

NormWeights TensorBinder::norm(const std::string& name, int64_t size) {
  const bool legacy = !has(name + ".weight") && has(name + ".gamma");
  NormWeights norm;
  norm.gamma = tensor(name + (legacy ? ".gamma" : ".weight"), {size});
  norm.beta = tensor(name + (legacy ? ".beta" : ".bias"), {size});
  return norm;
}

void TensorBinder::ignore(const std::string& name) {
  if (has(name)) ignored_.insert(name);
}

std::vector<std::string> TensorBinder::unused() const {
  std::vector<std::string> names;
  for (const TensorInfo& info : file_.tensors()) {
    if (!used_.count(info.name) && !ignored_.count(info.name)) names.push_back(info.name);
  }
  return names;
}

std::vector<std::string> TensorBinder::ignored() const {
  return std::vector<std::string>(ignored_.begin(), ignored_.end());
}

}  // namespace tinyenc
