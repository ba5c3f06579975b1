#include "engine/ops/matmul.h"

namespace tinyenc::ops {
namespace {

using dnnl::memory;
using tag = memory::format_tag;

dnnl::algorithm algorithm_of(Epilogue epilogue) {
  switch (epilogue) {
    case Epilogue::kGeluErf:
      return dnnl::algorithm::eltwise_gelu_erf;
    case Epilogue::kGeluTanh:
      return dnnl::algorithm::eltwise_gelu_tanh;
    case Epilogue::kRelu:
      return dnnl::algorithm::eltwise_relu;
    case Epilogue::kTanh:
      return dnnl::algorithm::eltwise_tanh;
    case Epilogue::kNone:
      break;
  }
  return dnnl::algorithm::undef;
}

int residual_argument(Epilogue epilogue) {
  const int index = epilogue != Epilogue::kNone ? 1 : 0;  // after the eltwise post-op, if any
  return DNNL_ARG_ATTR_MULTIPLE_POST_OP(index) | DNNL_ARG_SRC_1;
}

// Few rows (short inputs): a 1x1 convolution over [rows, in] as a width-`rows` image in nwc
// layout. Its weights are reordered once into oneDNN's blocked layout, where a GEMM would
// re-pack the whole matrix on every call, which dominates when rows are few (2x on AVX2).
// Many rows: a matmul reading torch's [out, in] matrix in place ("ba" as [in, out]), the
// order oneDNN's GEMM runs fastest with there.
constexpr int64_t kMaxConvolutionRows = 64;

}  // namespace

void Matmul::operator()(const float* x, int64_t rows, WeightMatrix& weights, const float* bias,
                        float* y, Epilogue epilogue, const float* residual) {
  const Key key{&weights, bias, rows, epilogue, residual != nullptr, current_threads()};
  BoundPrimitive& plan = plans_.get(key, [&] { return this->plan(key, weights); });
  plan.bind(DNNL_ARG_SRC, x).bind(DNNL_ARG_DST, y);
  if (residual) plan.bind(residual_argument(epilogue), residual);
  plan.execute(runtime_->stream);
}

BoundPrimitive Matmul::plan(const Key& key, WeightMatrix& weights) {
  const int64_t rows = key.rows, in = weights.in_features(), out = weights.out_features();
  const memory::data_type f32 = memory::data_type::f32;
  const bool convolution = rows <= kMaxConvolutionRows;
  const memory::desc src = convolution ? memory::desc({1, in, rows}, f32, tag::acb)
                                       : memory::desc({rows, in}, f32, tag::ab);
  const memory::desc dst = convolution ? memory::desc({1, out, rows}, f32, tag::acb)
                                       : memory::desc({rows, out}, f32, tag::ab);
  dnnl::post_ops post_ops;
  if (key.epilogue != Epilogue::kNone) {
    post_ops.append_eltwise(1.0f, algorithm_of(key.epilogue), 0.0f, 0.0f);
  }
  if (key.residual) post_ops.append_binary(dnnl::algorithm::binary_add, dst);
  dnnl::primitive_attr attributes;
  attributes.set_post_ops(post_ops);
  const dnnl::engine& engine = runtime_->engine;
  void* bias = const_cast<float*>(key.bias);  // oneDNN takes non-const handles; it only reads

  dnnl::primitive primitive;
  memory weight_memory;
  memory::desc bias_desc;
  if (convolution) {
    using Convolution = dnnl::convolution_forward;
    const memory::desc any_weights({out, in, 1}, weights.data_type(), tag::any);
    bias_desc = memory::desc({out}, f32, tag::a);
    const auto kind = dnnl::prop_kind::forward_inference;
    const auto direct = dnnl::algorithm::convolution_direct;
    const Convolution::desc description =
        bias ? Convolution::desc(kind, direct, src, any_weights, bias_desc, dst, {1}, {0}, {0})
             : Convolution::desc(kind, direct, src, any_weights, dst, {1}, {0}, {0});
    const Convolution::primitive_desc pd(description, attributes, engine);
    primitive = Convolution(pd);
    weight_memory = weights.packed(pd.weights_desc());
  } else {
    const memory::desc torch_weights({in, out}, weights.data_type(), tag::ba);
    bias_desc = memory::desc({1, out}, f32, tag::ab);
    const dnnl::matmul::desc description =
        bias ? dnnl::matmul::desc(src, torch_weights, bias_desc, dst)
             : dnnl::matmul::desc(src, torch_weights, dst);
    const dnnl::matmul::primitive_desc pd(description, attributes, engine);
    primitive = dnnl::matmul(pd);
    weight_memory = memory(torch_weights, engine, const_cast<void*>(weights.data()));
  }
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, memory(src, engine, nullptr)},
                                       {DNNL_ARG_WEIGHTS, weight_memory},
                                       {DNNL_ARG_DST, memory(dst, engine, nullptr)}};
  if (bias) args.emplace(DNNL_ARG_BIAS, memory(bias_desc, engine, bias));
  if (key.residual) args.emplace(residual_argument(key.epilogue), memory(dst, engine, nullptr));
  return BoundPrimitive(std::move(primitive), std::move(args));
}

}  // namespace tinyenc::ops
