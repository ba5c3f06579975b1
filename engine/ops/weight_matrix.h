// A Linear's weight matrix in the data type the matmul computes in, [out_features, in_features]
// as in torch.nn.Linear. Only this type and the matmul op hold the storage (as the dtype's row of
// dtype_traits, engine/dtype.h, describes it); the layers above pass the weights in whatever form
// the model file holds them (LinearSource, engine/encoder_weights.h) and the dtype.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>
#include <utility>
#include <vector>

#include "engine/dtype.h"
#include "engine/encoder_weights.h"
#include "engine/ops/runtime.h"

namespace tinyenc {

// Several matrices with the same in_features stacked by rows (QKV): owns the concatenation.
// Sources in one common form stay in it (s8 rows keep their scales); mixed forms become f32.
class StackedSource {
 public:
  explicit StackedSource(const std::vector<LinearSource>& parts);
  StackedSource(const StackedSource&) = delete;
  StackedSource& operator=(const StackedSource&) = delete;
  const LinearSource& source() const { return source_; }
  // Frees the concatenation (source() is then empty): for when what was built from it does not
  // keep it by pointer (WeightMatrix::keeps_source).
  void release();

 private:
  std::vector<std::byte> values_;
  std::vector<float> scales_;
  LinearSource source_;
};

class WeightMatrix {
 public:
  // Converts `source` once into `dtype`'s storage (dtype_traits(dtype).from_f32): f32, bf16
  // (rounded to nearest even) or symmetric s8 per output channel. A source already in `dtype`'s
  // form is kept by pointer; pointers kept stay the caller's to keep alive.
  WeightMatrix(Runtime& runtime, const LinearSource& source, ComputeDtype dtype);
  // An f32 matrix kept by pointer.
  WeightMatrix(Runtime& runtime, const float* data, int64_t out_features, int64_t in_features);
  WeightMatrix(const WeightMatrix&) = delete;
  WeightMatrix& operator=(const WeightMatrix&) = delete;

  ComputeDtype dtype() const { return dtype_; }
  // Whether the matrix is the source's memory, kept by pointer, rather than a converted copy.
  bool keeps_source() const { return keeps_source_; }
  dnnl::memory::data_type data_type() const { return dtype_traits(dtype_).weight_type; }
  const void* data() const { return data_; }
  int64_t out_features() const { return out_; }
  int64_t in_features() const { return in_; }
  // int8 only: weight[o][i] = s8[o][i] * scales()[o], and row_sums()[o] = sum_i s8[o][i] (what a
  // zero point in the activations adds to each output).
  const float* scales() const { return scales_; }
  const int32_t* row_sums() const { return row_sums_.data(); }

  // The matrix reordered into the layout a primitive asked for: dims [in, out] (a matmul's
  // weights) or [out, in, 1] (a 1x1 convolution's); reordered on the first request for that
  // layout and kept.
  const dnnl::memory& packed(const dnnl::memory::desc& desc);

  // int8 or bf16: the matrix in the AMX tile product's order (ops::tiles::pack), made on the
  // first request and kept.
  const std::byte* tiles();

 private:
  Runtime* runtime_;
  ComputeDtype dtype_ = ComputeDtype::kF32;
  const void* data_ = nullptr;
  const float* scales_ = nullptr;
  bool keeps_source_ = false;
  int64_t out_;
  int64_t in_;
  std::vector<float> f32_;      // the source widened, when it was not f32
  std::vector<std::byte> own_;  // converted storage, when the source was not kept
  std::vector<float> own_scales_;
  std::vector<int32_t> row_sums_;
  std::list<std::pair<dnnl::memory::desc, dnnl::memory>> packed_;  // list: stable addresses
  std::vector<std::byte> tiles_;
};

}  // namespace tinyenc
