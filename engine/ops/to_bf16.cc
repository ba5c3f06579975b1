#include "engine/ops/to_bf16.h"

#include "engine/bf16.h"
#include "engine/ops/implementation.h"

namespace tinyenc::ops {

void ToBf16::operator()(const float* values, int64_t count, void* bits) {
  planes(values, 1, 1, count, bits);
}

void ToBf16::planes(const float* values, int64_t rows, int64_t planes, int64_t cols, void* bits) {
  Conversion& conversion = conversions_.get(Key{rows, planes, cols, current_threads()}, [&] {
    using dnnl::memory;
    const dnnl::engine& engine = runtime_->engine;
    const memory::desc from({rows, planes, cols}, memory::data_type::f32,
                            memory::dims{planes * cols, cols, 1});
    const memory::desc to({rows, planes, cols}, memory::data_type::bf16,
                          memory::dims{cols, rows * cols, 1});
    const dnnl::reorder::primitive_desc pd(engine, from, engine, to);
    // A reorder has one implementation for a pair of layouts (no next_impl()).
    if (!acceptable_implementation(pd.impl_info_str())) return Conversion{};
    return Conversion{
        BoundPrimitive(dnnl::reorder(pd), {{DNNL_ARG_FROM, memory(from, engine, nullptr)},
                                           {DNNL_ARG_TO, memory(to, engine, nullptr)}}),
        true};
  });
  if (conversion.onednn) {
    conversion.primitive.bind(DNNL_ARG_FROM, values).bind(DNNL_ARG_TO, bits);
    conversion.primitive.execute(runtime_->stream);
    return;
  }
  auto* out = static_cast<uint16_t*>(bits);
  for (int64_t p = 0; p < planes; ++p) {
    for (int64_t r = 0; r < rows; ++r) {
      convert_to_bf16(values + (r * planes + p) * cols, cols, out + (p * rows + r) * cols);
    }
  }
}

}  // namespace tinyenc::ops
