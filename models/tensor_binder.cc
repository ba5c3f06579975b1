#include "models/tensor_binder.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>

namespace tinyenc {
namespace {

std::string quoted(const std::string& text) { return "'" + text + "'"; }

// Whether the file holds `tensor` as `tinyenc convert --dtype dtype` stores it.
bool stored_as(const TensorInfo& tensor, ComputeDtype dtype) {
  return dtype_name(tensor.dtype) == dtype_traits(dtype).file_dtype;
}

}  // namespace

std::optional<ComputeDtype> stored_dtype(const SafetensorsFile& file) {
  const auto it = file.metadata().find("tinyenc_dtype");
  if (it == file.metadata().end()) return std::nullopt;
  const std::optional<ComputeDtype> dtype = parse_compute_dtype(it->second);
  if (!dtype || *dtype == ComputeDtype::kF32) {
    throw std::invalid_argument(file.name() + ": __metadata__.tinyenc_dtype: " +
                                quoted(it->second) + " is not int8 or bf16");
  }
  return dtype;
}

TensorBinder::TensorBinder(SafetensorsFile& file, ComputeDtype dtype)
    : file_(file), dtype_(dtype), stored_(stored_dtype(file)) {
  for (const TensorInfo& info : file_.tensors()) {
    if (info.name.ends_with(kScaleSuffix)) {
      const std::string base = info.name.substr(0, info.name.size() - kScaleSuffix.size());
      const TensorInfo* owner = file_.find(base);
      if (!owner) fail(info.name, "a scale of no tensor (" + quoted(base) + " is not in the file)");
      if (owner->dtype != DType::kI8) {
        fail(info.name, "a scale of " + quoted(base) + ", which is " +
                            std::string(dtype_name(owner->dtype)) + ", not I8");
      }
      continue;
    }
    if (info.dtype != DType::kI8) continue;
    if (stored_ != ComputeDtype::kInt8) {
      fail(info.name,
           "I8, but the file's __metadata__ does not say \"tinyenc_dtype\": \"int8\" (the mark "
           "of a folder written by tinyenc convert --dtype int8)");
    }
    if (info.shape.size() != 2) {
      fail(info.name, "I8 with shape " + shape_string(info.shape) +
                          "; quantized tensors are matrices [rows, columns]");
    }
    const TensorInfo* scale = file_.find(info.name + std::string(kScaleSuffix));
    if (!scale) {
      fail(info.name, "I8 without its scales " + quoted(info.name + std::string(kScaleSuffix)) +
                          " (F32 [" + std::to_string(info.shape[0]) + "])");
    }
    if (scale->dtype != DType::kF32 || scale->shape != std::vector<int64_t>{info.shape[0]}) {
      fail(scale->name, "scales of " + quoted(info.name) + " must be F32 [" +
                            std::to_string(info.shape[0]) + "], got " +
                            std::string(dtype_name(scale->dtype)) + " " +
                            shape_string(scale->shape));
    }
  }
}

void TensorBinder::fail(const std::string& name, const std::string& what) const {
  throw std::invalid_argument(file_.name() + ": tensor '" + name + "': " + what);
}

const TensorInfo& TensorBinder::checked(const std::string& name,
                                        const std::vector<int64_t>& shape) {
  const TensorInfo* info = file_.find(name);
  if (!info) fail(name, "missing (expected shape " + shape_string(shape) + ")");
  if (info->shape != shape) {
    fail(name, "expected shape " + shape_string(shape) + " from config.json, got " +
                   shape_string(info->shape));
  }
  used_.insert(name);
  return *info;
}

const float* TensorBinder::scales_of(const TensorInfo& tensor) {
  const std::string name = tensor.name + std::string(kScaleSuffix);
  const TensorInfo& scale = *file_.find(name);  // checked by the constructor
  used_.insert(name);
  const float* scales = file_.float32(scale);  // refuses NaN and infinities
  for (uint64_t r = 0; r < scale.elements; ++r) {
    if (!(scales[r] > 0.0f)) {
      fail(name, "element [" + std::to_string(r) + "] is " + std::to_string(scales[r]) +
                     "; scales must be positive");
    }
  }
  // A finite scale times the row's largest |value| must stay finite too: otherwise the weight
  // itself is infinite, in every dtype (widened to f32, or multiplied in int8).
  const int8_t* values = file_.int8(tensor);
  const int64_t rows = static_cast<int64_t>(scale.elements);
  const int64_t columns = rows > 0 ? static_cast<int64_t>(tensor.elements) / rows : 0;
  for (int64_t r = 0; r < rows; ++r) {
    int largest = 0;
    for (int64_t c = 0; c < columns; ++c)
      largest = std::max(largest, std::abs(int{values[r * columns + c]}));
    if (static_cast<double>(scales[r]) * largest > std::numeric_limits<float>::max()) {
      char scale_text[32];
      std::snprintf(scale_text, sizeof scale_text, "%g", static_cast<double>(scales[r]));
      fail(name, "element [" + std::to_string(r) + "] is " + scale_text +
                     ", and times the row's largest value " + std::to_string(largest) +
                     " it overflows float32; weights must be finite");
    }
  }
  return scales;
}

const float* TensorBinder::optional_tensor(const std::string& name,
                                           const std::vector<int64_t>& shape) {
  if (!has(name)) return nullptr;
  const TensorInfo& info = checked(name, shape);
  if (info.dtype == DType::kI8) {
    fail(name,
         "I8, but this tensor must be F32, F16 or BF16: only Linear weights and embeddings "
         "may be quantized");
  }
  return file_.float32(info);
}

const float* TensorBinder::tensor(const std::string& name, const std::vector<int64_t>& shape) {
  if (!has(name)) fail(name, "missing (expected shape " + shape_string(shape) + ")");
  return optional_tensor(name, shape);
}

const float* TensorBinder::embedding(const std::string& name, const std::vector<int64_t>& shape) {
  const TensorInfo& info = checked(name, shape);
  roles_[name] = TensorRole::kEmbedding;
  if (info.dtype == DType::kI8) {
    return file_.widened(info, ComputeDtype::kInt8, file_.int8(info), scales_of(info));
  }
  // A float table rounds as `tinyenc convert` would store it, so that converting at load and
  // loading a converted folder give the same outputs (f32 is the float itself, and a table
  // stored as the dtype stores it already is what it would round to).
  if (dtype_ != ComputeDtype::kF32 && !stored_as(info, dtype_)) {
    const SafetensorsFile::Converted& converted = file_.converted(info, dtype_);
    return file_.widened(info, dtype_, converted.values.data(), converted.scales.data());
  }
  return file_.float32(info);
}

LinearWeights TensorBinder::linear(const std::string& name, int64_t out_features,
                                   int64_t in_features) {
  const std::string weight_name = name + ".weight";
  const TensorInfo& weight = checked(weight_name, {out_features, in_features});
  roles_[weight_name] = TensorRole::kLinearWeight;
  if (stored_ && !stored_as(weight, *stored_)) {
    fail(weight_name, std::string(dtype_name(weight.dtype)) +
                          ", but the file's __metadata__ says \"tinyenc_dtype\": \"" +
                          std::string(compute_dtype_name(*stored_)) + "\" (Linear weights " +
                          std::string(dtype_traits(*stored_).file_dtype) + ")");
  }
  // A float weight goes to the engine as float32 and WeightMatrix converts it to the compute
  // dtype, with the functions `tinyenc convert` stores with (dtype_traits, engine/dtype.h), so that
  // converting at load and loading a converted folder give the same outputs. A weight stored
  // converted goes in that form when the compute dtype wants it.
  const float* scales = weight.dtype == DType::kI8 ? scales_of(weight) : nullptr;
  LinearSource source;
  if (dtype_ != ComputeDtype::kF32 && stored_as(weight, dtype_)) {
    const void* values = weight.dtype == DType::kI8 ? static_cast<const void*>(file_.int8(weight))
                                                    : file_.bf16(weight);
    source = LinearSource::in_form(dtype_, values, scales, out_features, in_features);
  } else if (weight.dtype == DType::kI8) {
    const float* widened = file_.widened(weight, ComputeDtype::kInt8, file_.int8(weight), scales);
    source = LinearSource::of_f32(widened, out_features, in_features);
  } else {
    source = LinearSource::of_f32(file_.float32(weight), out_features, in_features);
  }
  return linear_weights(source, tensor(name + ".bias", {out_features}));
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
