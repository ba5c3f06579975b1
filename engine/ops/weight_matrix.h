// A Linear's weight matrix in the data type it is stored in, [out_features, in_features] as in
// torch.nn.Linear. Only this type and the matmul op know the storage type: a new one (bf16, int8
// per output channel) changes them and nothing above.
#pragma once

#include <cstdint>
#include <list>
#include <oneapi/dnnl/dnnl.hpp>
#include <utility>

#include "engine/ops/runtime.h"

namespace tinyenc {

enum class WeightType { kF32 };

class WeightMatrix {
 public:
  // Keeps a pointer to `data` (f32, row-major); the caller keeps it alive.
  WeightMatrix(Runtime& runtime, const float* data, int64_t out_features, int64_t in_features);

  WeightType type() const { return type_; }
  dnnl::memory::data_type data_type() const;
  const void* data() const { return data_; }
  int64_t out_features() const { return out_; }
  int64_t in_features() const { return in_; }

  // The matrix reordered into the layout a primitive asked for (dims [out, in] or
  // [out, in, 1]); reordered on the first request for that layout and kept.
  const dnnl::memory& packed(const dnnl::memory::desc& desc);

 private:
  Runtime* runtime_;
  WeightType type_ = WeightType::kF32;
  const void* data_;
  int64_t out_;
  int64_t in_;
  std::list<std::pair<dnnl::memory::desc, dnnl::memory>> packed_;  // list: stable addresses
};

}  // namespace tinyenc
