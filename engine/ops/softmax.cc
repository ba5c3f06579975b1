#include "engine/ops/softmax.h"

#include <string>

#include "engine/ops/implementation.h"

namespace tinyenc::ops {

void Softmax::operator()(float* data, int64_t rows, int64_t cols) {
  using dnnl::memory;
  BoundPrimitive& plan = plans_.get(Key{rows, cols, current_threads()}, [&] {
    const memory::desc desc({rows, cols}, memory::data_type::f32, memory::format_tag::ab);
    dnnl::softmax_forward::primitive_desc pd(
        dnnl::softmax_forward::desc(dnnl::prop_kind::forward_inference, desc, 1), runtime_->engine);
    require_implementation(pd,
                           "a softmax of " + std::to_string(rows) + " x " + std::to_string(cols));
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, memory(desc, runtime_->engine, nullptr)},
                                         {DNNL_ARG_DST, memory(desc, runtime_->engine, nullptr)}};
    return BoundPrimitive(dnnl::softmax_forward(pd), std::move(args));
  });
  plan.bind(DNNL_ARG_SRC, data).bind(DNNL_ARG_DST, data).execute(runtime_->stream);
}

}  // namespace tinyenc::ops
