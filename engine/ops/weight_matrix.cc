#include "engine/ops/weight_matrix.h"

#include <stdexcept>

namespace tinyenc {

using dnnl::memory;

WeightMatrix::WeightMatrix(Runtime& runtime, const float* data, int64_t out_features,
                           int64_t in_features)
    : runtime_(&runtime), data_(data), out_(out_features), in_(in_features) {
  if (!data || out_features <= 0 || in_features <= 0) {
    throw std::invalid_argument("Linear: missing weight or empty shape");
  }
}

memory::data_type WeightMatrix::data_type() const { return memory::data_type::f32; }

const memory& WeightMatrix::packed(const memory::desc& desc) {
  for (const auto& [packed_desc, packed] : packed_) {
    if (packed_desc == desc) return packed;
  }
  // The row-major [out, in] matrix seen with the dims of `desc` (a 1x1 convolution's weights
  // are [out, in, 1]).
  const memory::dims dims = desc.dims();
  const auto plain = dims.size() == 3 ? memory::format_tag::abc : memory::format_tag::ab;
  memory source(memory::desc(dims, data_type(), plain), runtime_->engine, const_cast<void*>(data_));
  memory packed(desc, runtime_->engine);
  dnnl::reorder(source, packed).execute(runtime_->stream, source, packed);
  runtime_->stream.wait();
  packed_.emplace_back(desc, std::move(packed));
  return packed_.back().second;
}

}  // namespace tinyenc
