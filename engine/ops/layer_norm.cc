#include "engine/ops/layer_norm.h"

#include <string>

#include "engine/ops/implementation.h"

namespace tinyenc::ops {

void LayerNorm::operator()(const float* src, int64_t rows, int64_t width, const float* gamma,
                           const float* beta, float epsilon, float* dst) {
  using dnnl::memory;
  const Key key{gamma, beta, rows, width, epsilon, current_threads()};
  BoundPrimitive& plan = plans_.get(key, [&] {
    const memory::desc data({rows, width}, memory::data_type::f32, memory::format_tag::ab);
    const memory::desc vector({width}, memory::data_type::f32, memory::format_tag::a);
    const auto flags = dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift;
    const dnnl::engine& engine = runtime_->engine;
    using LayerNormalization = dnnl::layer_normalization_forward;
    // Named, not a temporary: the primitive_desc reads it again when searched (oneDNN 2.x).
    const LayerNormalization::desc description(dnnl::prop_kind::forward_inference, data, epsilon,
                                               flags);
    LayerNormalization::primitive_desc pd(description, engine);
    require_implementation(
        pd, "a layer normalization of " + std::to_string(rows) + " x " + std::to_string(width));
    std::unordered_map<int, memory> args{
        {DNNL_ARG_SRC, memory(data, engine, nullptr)},
        {DNNL_ARG_DST, memory(data, engine, nullptr)},
        {DNNL_ARG_SCALE, memory(vector, engine, const_cast<float*>(gamma))},
        {DNNL_ARG_SHIFT, memory(vector, engine, const_cast<float*>(beta))}};
    return BoundPrimitive(LayerNormalization(pd), std::move(args));
  });
  plan.bind(DNNL_ARG_SRC, src).bind(DNNL_ARG_DST, dst).execute(runtime_->stream);
}

}  // namespace tinyenc::ops
