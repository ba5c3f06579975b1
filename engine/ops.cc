#include "engine/ops.h"

#include <omp.h>

#include <stdexcept>

namespace tinyenc {

using dnnl::memory;
using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

Runtime::Runtime() : engine(dnnl::engine::kind::cpu, 0), stream(engine) {}

namespace {

memory make_memory(const memory::desc& desc, const dnnl::engine& engine, const void* data) {
  // oneDNN takes a non-const handle; the primitives only read source operands.
  return memory(desc, engine, const_cast<void*>(data));
}

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

memory::desc desc_of(const View4& view) {
  return memory::desc({view.dims[0], view.dims[1], view.dims[2], view.dims[3]}, dt::f32,
                      {view.strides[0], view.strides[1], view.strides[2], view.strides[3]});
}

std::string key_of(const char* op, const View4& a, const View4& b) {
  std::string key = op;
  for (const View4* view : {&a, &b}) {
    for (int i = 0; i < 4; ++i) {
      key += ':' + std::to_string(view->dims[i]) + '/' + std::to_string(view->strides[i]);
    }
  }
  return key + ":t" + std::to_string(omp_get_max_threads());
}

}  // namespace

Linear::Linear(Runtime& runtime, const float* weight, const float* bias, int64_t out_features,
               int64_t in_features)
    : runtime_(&runtime), weight_(weight), bias_(bias), out_(out_features), in_(in_features) {
  if (!weight || out_features <= 0 || in_features <= 0) {
    throw std::invalid_argument("Linear: missing weight or empty shape");
  }
}

const memory& Linear::packed_weights(const memory::desc& desc) {
  for (const auto& [packed_desc, packed] : packed_) {
    if (packed_desc == desc) return packed;
  }
  // torch.nn.Linear's [out, in] row-major matrix, seen with the dims of `desc` (a 1x1
  // convolution's weights are [out, in, 1]).
  const memory::dims dims = desc.dims();
  memory source = make_memory(memory::desc(dims, dt::f32, dims.size() == 3 ? tag::abc : tag::ab),
                              runtime_->engine, weight_);
  memory packed(desc, runtime_->engine);
  dnnl::reorder(source, packed).execute(runtime_->stream, source, packed);
  runtime_->stream.wait();
  packed_.emplace_back(desc, std::move(packed));
  return packed_.back().second;
}

// Few rows (short inputs): a 1x1 convolution over [rows, in] as a width-`rows` image in nwc
// layout. Its weights are reordered once into oneDNN's blocked layout, where a GEMM would
// re-pack the whole matrix on every call, which dominates when rows are few (2x on AVX2).
// Many rows: a matmul reading torch's [out, in] matrix in place ("ba" as [in, out]), the
// order oneDNN's GEMM runs fastest with there.
constexpr int64_t kMaxConvolutionRows = 64;

void Linear::operator()(const float* x, int64_t rows, float* y, Epilogue epilogue,
                        const float* residual) {
  const auto key = std::make_tuple(rows, epilogue, residual != nullptr, omp_get_max_threads());
  auto it = plans_.find(key);
  if (it == plans_.end()) it = plans_.emplace(key, plan(rows, epilogue, residual != nullptr)).first;
  BoundPrimitive& plan = it->second;
  plan.bind(DNNL_ARG_SRC, x).bind(DNNL_ARG_DST, y);
  if (residual) {
    const int index = epilogue != Epilogue::kNone ? 1 : 0;
    plan.bind(DNNL_ARG_ATTR_MULTIPLE_POST_OP(index) | DNNL_ARG_SRC_1, residual);
  }
  plan.execute(runtime_->stream);
}

BoundPrimitive Linear::plan(int64_t rows, Epilogue epilogue, bool residual) {
  const bool convolution = rows <= kMaxConvolutionRows;
  const memory::desc src = convolution ? memory::desc({1, in_, rows}, dt::f32, tag::acb)
                                       : memory::desc({rows, in_}, dt::f32, tag::ab);
  const memory::desc dst = convolution ? memory::desc({1, out_, rows}, dt::f32, tag::acb)
                                       : memory::desc({rows, out_}, dt::f32, tag::ab);
  dnnl::post_ops post_ops;
  if (epilogue != Epilogue::kNone)
    post_ops.append_eltwise(1.0f, algorithm_of(epilogue), 0.0f, 0.0f);
  if (residual) post_ops.append_binary(dnnl::algorithm::binary_add, dst);
  dnnl::primitive_attr attributes;
  attributes.set_post_ops(post_ops);
  const dnnl::engine& engine = runtime_->engine;

  dnnl::primitive primitive;
  memory weights;
  memory bias;
  if (convolution) {
    using Convolution = dnnl::convolution_forward;
    const memory::desc any_weights({out_, in_, 1}, dt::f32, tag::any);
    const memory::desc bias_desc({out_}, dt::f32, tag::a);
    const auto kind = dnnl::prop_kind::forward_inference;
    const auto direct = dnnl::algorithm::convolution_direct;
    const Convolution::desc description =
        bias_ ? Convolution::desc(kind, direct, src, any_weights, bias_desc, dst, {1}, {0}, {0})
              : Convolution::desc(kind, direct, src, any_weights, dst, {1}, {0}, {0});
    const Convolution::primitive_desc pd(description, attributes, engine);
    primitive = Convolution(pd);
    weights = packed_weights(pd.weights_desc());
    if (bias_) bias = make_memory(bias_desc, engine, bias_);
  } else {
    const memory::desc torch_weights({in_, out_}, dt::f32, tag::ba);
    const memory::desc bias_desc({1, out_}, dt::f32, tag::ab);
    const dnnl::matmul::desc description =
        bias_ ? dnnl::matmul::desc(src, torch_weights, bias_desc, dst)
              : dnnl::matmul::desc(src, torch_weights, dst);
    const dnnl::matmul::primitive_desc pd(description, attributes, engine);
    primitive = dnnl::matmul(pd);
    weights = make_memory(torch_weights, engine, weight_);
    if (bias_) bias = make_memory(bias_desc, engine, bias_);
  }
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, memory(src, engine, nullptr)},
                                       {DNNL_ARG_WEIGHTS, weights},
                                       {DNNL_ARG_DST, memory(dst, engine, nullptr)}};
  if (bias_) args.emplace(DNNL_ARG_BIAS, bias);
  if (residual) {
    const int index = epilogue != Epilogue::kNone ? 1 : 0;
    args.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(index) | DNNL_ARG_SRC_1,
                 memory(dst, engine, nullptr));
  }
  return BoundPrimitive(std::move(primitive), std::move(args));
}

void AttentionCore::scores(const View4& q, const View4& k, float scale, const float* key_bias,
                           const std::array<int64_t, 4>& bias_dims, float* scores) {
  const int64_t batch = q.dims[0], heads = q.dims[1], queries = q.dims[2], keys = k.dims[2];
  // k^T as a view: swap the last two axes.
  View4 k_transposed = k;
  std::swap(k_transposed.dims[2], k_transposed.dims[3]);
  std::swap(k_transposed.strides[2], k_transposed.strides[3]);
  std::string key = key_of("scores", q, k_transposed) + ":" + std::to_string(scale);
  if (key_bias) {
    for (int64_t dim : bias_dims) key += ":b" + std::to_string(dim);
  }
  auto it = cache_.find(key);
  if (it == cache_.end()) {
    const memory::desc dst({batch, heads, queries, keys}, dt::f32, tag::abcd);
    const memory::desc bias({bias_dims[0], bias_dims[1], bias_dims[2], bias_dims[3]}, dt::f32,
                            tag::abcd);
    dnnl::primitive_attr attributes;
    attributes.set_output_scales(0, {scale});
    if (key_bias) {
      dnnl::post_ops post_ops;
      post_ops.append_binary(dnnl::algorithm::binary_add, bias);
      attributes.set_post_ops(post_ops);
    }
    const dnnl::engine& engine = runtime_->engine;
    const dnnl::matmul::primitive_desc pd(
        dnnl::matmul::desc(desc_of(q), desc_of(k_transposed), dst), attributes, engine);
    std::unordered_map<int, memory> args{
        {DNNL_ARG_SRC, memory(desc_of(q), engine, nullptr)},
        {DNNL_ARG_WEIGHTS, memory(desc_of(k_transposed), engine, nullptr)},
        {DNNL_ARG_DST, memory(dst, engine, nullptr)}};
    if (key_bias) {
      args.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1,
                   memory(bias, engine, nullptr));
    }
    it = cache_.emplace(key, BoundPrimitive(dnnl::matmul(pd), std::move(args))).first;
  }
  BoundPrimitive& plan = it->second;
  plan.bind(DNNL_ARG_SRC, q.data).bind(DNNL_ARG_WEIGHTS, k.data).bind(DNNL_ARG_DST, scores);
  if (key_bias) plan.bind(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, key_bias);
  plan.execute(runtime_->stream);
}

void AttentionCore::softmax(float* scores, int64_t rows, int64_t cols) {
  const std::string key = "softmax:" + std::to_string(rows) + "x" + std::to_string(cols) + ":t" +
                          std::to_string(omp_get_max_threads());
  auto it = cache_.find(key);
  if (it == cache_.end()) {
    const memory::desc data({rows, cols}, dt::f32, tag::ab);
    const dnnl::softmax_forward::primitive_desc pd(
        dnnl::softmax_forward::desc(dnnl::prop_kind::forward_inference, data, 1), runtime_->engine);
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, memory(data, runtime_->engine, nullptr)},
                                         {DNNL_ARG_DST, memory(data, runtime_->engine, nullptr)}};
    it = cache_.emplace(key, BoundPrimitive(dnnl::softmax_forward(pd), std::move(args))).first;
  }
  it->second.bind(DNNL_ARG_SRC, scores).bind(DNNL_ARG_DST, scores).execute(runtime_->stream);
}

void AttentionCore::context(const float* probabilities, const View4& v, const View4& out) {
  const int64_t batch = v.dims[0], heads = v.dims[1], keys = v.dims[2];
  const int64_t queries = out.dims[2];
  const std::string key = key_of("context", v, out) + ":" + std::to_string(queries);
  auto it = cache_.find(key);
  if (it == cache_.end()) {
    const memory::desc src({batch, heads, queries, keys}, dt::f32, tag::abcd);
    const dnnl::engine& engine = runtime_->engine;
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src, desc_of(v), desc_of(out)),
                                          engine);
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, memory(src, engine, nullptr)},
                                         {DNNL_ARG_WEIGHTS, memory(desc_of(v), engine, nullptr)},
                                         {DNNL_ARG_DST, memory(desc_of(out), engine, nullptr)}};
    it = cache_.emplace(key, BoundPrimitive(dnnl::matmul(pd), std::move(args))).first;
  }
  it->second.bind(DNNL_ARG_SRC, probabilities)
      .bind(DNNL_ARG_WEIGHTS, v.data)
      .bind(DNNL_ARG_DST, out.data)
      .execute(runtime_->stream);
}

LayerNorm::LayerNorm(Runtime& runtime, const float* gamma, const float* beta, int64_t width,
                     float epsilon)
    : runtime_(&runtime), gamma_(gamma), beta_(beta), width_(width), epsilon_(epsilon) {
  if (!gamma || !beta) throw std::invalid_argument("LayerNorm: missing gamma or beta");
}

void LayerNorm::operator()(const float* src, int64_t rows, float* dst) {
  const auto key = std::make_pair(rows, omp_get_max_threads());
  auto it = plans_.find(key);
  if (it == plans_.end()) {
    const memory::desc data({rows, width_}, dt::f32, tag::ab);
    const memory::desc vector({width_}, dt::f32, tag::a);
    const auto flags = dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift;
    const dnnl::engine& engine = runtime_->engine;
    const dnnl::layer_normalization_forward::primitive_desc pd(
        dnnl::layer_normalization_forward::desc(dnnl::prop_kind::forward_inference, data, epsilon_,
                                                flags),
        engine);
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, memory(data, engine, nullptr)},
                                         {DNNL_ARG_DST, memory(data, engine, nullptr)},
                                         {DNNL_ARG_SCALE, make_memory(vector, engine, gamma_)},
                                         {DNNL_ARG_SHIFT, make_memory(vector, engine, beta_)}};
    it = plans_.emplace(key, BoundPrimitive(dnnl::layer_normalization_forward(pd), std::move(args)))
             .first;
  }
  it->second.bind(DNNL_ARG_SRC, src).bind(DNNL_ARG_DST, dst).execute(runtime_->stream);
}

}  // namespace tinyenc
