#include "engine/ops/to_bf16.h"

#include "engine/bf16.h"
#include "engine/ops/implementation.h"

namespace tinyenc::ops {

void ToBf16::operator()(const float* values, int64_t count, void* bits) {
  Conversion& conversion = conversions_.get(Key{count, current_threads()}, [&] {
    using dnnl::memory;
    const dnnl::engine& engine = runtime_->engine;
    const memory::desc from({count}, memory::data_type::f32, memory::format_tag::a);
    const memory::desc to({count}, memory::data_type::bf16, memory::format_tag::a);
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
  } else {
    convert_to_bf16(values, count, static_cast<uint16_t*>(bits));
  }
}

}  // namespace tinyenc::ops
