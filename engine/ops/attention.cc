#include "engine/ops/attention.h"

#include <deque>
#include <string>
#include <utility>

#include "engine/ops/implementation.h"

namespace tinyenc::ops {
namespace {

using dnnl::memory;
using tag = memory::format_tag;
constexpr memory::data_type f32 = memory::data_type::f32;

constexpr memory::data_type bf16 = memory::data_type::bf16;

memory::desc desc_of(const ViewShape& view, memory::data_type type = f32) {
  return memory::desc({view.dims[0], view.dims[1], view.dims[2], view.dims[3]}, type,
                      {view.strides[0], view.strides[1], view.strides[2], view.strides[3]});
}

// The view's dims at other strides: a bf16 copy's.
ViewShape restrided(ViewShape view, const std::array<int64_t, 4>& strides) {
  view.strides = strides;
  return view;
}

}  // namespace

void AttentionCore::scores(const View4& q, const View4& k, float scale, const float* bias,
                           const std::array<int64_t, 4>& bias_dims, float* scores,
                           const View4Bf16& q16, const View4Bf16& k16) {
  // k^T as a view: swap the last two axes.
  ViewShape k_transposed = shape_of(k);
  std::swap(k_transposed.dims[2], k_transposed.dims[3]);
  std::swap(k_transposed.strides[2], k_transposed.strides[3]);
  const bool in_bf16 = q16.data != nullptr && k16.data != nullptr;
  std::array<int64_t, 4> k16_transposed_strides{};
  if (in_bf16) {
    k16_transposed_strides = k16.strides;
    std::swap(k16_transposed_strides[2], k16_transposed_strides[3]);
  }
  const ScoresKey key{shape_of(q),
                      k_transposed,
                      scale,
                      bias != nullptr,
                      in_bf16,
                      in_bf16 ? q16.strides : std::array<int64_t, 4>{},
                      k16_transposed_strides,
                      bias ? bias_dims : std::array<int64_t, 4>{},
                      current_threads()};
  ScoresPlan& plan = scores_.get(key, [&] {
    const memory::desc dst({q.dims[0], q.dims[1], q.dims[2], k.dims[2]}, f32, tag::abcd);
    const memory::desc bias_desc({bias_dims[0], bias_dims[1], bias_dims[2], bias_dims[3]}, f32,
                                 tag::abcd);
    const dnnl::engine& engine = runtime_->engine;
    const std::string what = "attention scores for " + std::to_string(q.dims[2]) + " queries";
    const auto q_desc = [&](memory::data_type type) {
      return type == bf16 ? desc_of(restrided(key.q, key.q16_strides), bf16) : desc_of(key.q);
    };
    const auto k_desc = [&](memory::data_type type) {
      return type == bf16 ? desc_of(restrided(key.k_transposed, key.k16_transposed_strides), bf16)
                          : desc_of(key.k_transposed);
    };
    // oneDNN 2.x's primitive_desc keeps a pointer to its op descriptor, read again by
    // next_impl(): each one stays here while its primitive_desc is searched.
    std::deque<dnnl::matmul::desc> descriptions;
    auto primitive_desc = [&](memory::data_type type, bool with_bias) {
      dnnl::primitive_attr attributes;
      attributes.set_output_scales(0, {scale});
      if (with_bias) {
        dnnl::post_ops post_ops;
        post_ops.append_binary(dnnl::algorithm::binary_add, bias_desc);
        attributes.set_post_ops(post_ops);
      }
      descriptions.emplace_back(q_desc(type), k_desc(type), dst);
      return dnnl::matmul::primitive_desc(descriptions.back(), attributes, engine);
    };
    // bf16 if asked for, with the bias fused, else added after; then the same in f32.
    ScoresPlan made;
    dnnl::matmul::primitive_desc pd;
    bool found = false;
    for (const memory::data_type type : {bf16, f32}) {
      if (type == bf16 && !key.bf16) continue;
      for (const bool fused : {true, false}) {
        if (found || (fused && !bias)) continue;
        pd = primitive_desc(type, fused);
        if (choose_implementation(pd)) {
          found = true;
          made.bf16 = type == bf16;
          made.bias_after = bias && !fused;
        }
      }
    }
    if (!found) no_implementation(what, primitive_desc(f32, bias != nullptr).impl_info_str());
    const memory::data_type type = made.bf16 ? bf16 : f32;
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, memory(q_desc(type), engine, nullptr)},
                                         {DNNL_ARG_WEIGHTS, memory(k_desc(type), engine, nullptr)},
                                         {DNNL_ARG_DST, memory(dst, engine, nullptr)}};
    if (bias && !made.bias_after) {
      args.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1,
                   memory(bias_desc, engine, nullptr));
    }
    made.primitive = BoundPrimitive(dnnl::matmul(pd), std::move(args));
    return made;
  });
  scores_in_bf16_ = plan.bf16;
  if (plan.bf16) {
    plan.primitive.bind(DNNL_ARG_SRC, q16.data).bind(DNNL_ARG_WEIGHTS, k16.data);
  } else {
    plan.primitive.bind(DNNL_ARG_SRC, q.data).bind(DNNL_ARG_WEIGHTS, k.data);
  }
  plan.primitive.bind(DNNL_ARG_DST, scores);
  if (bias && !plan.bias_after) {
    plan.primitive.bind(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, bias);
  }
  plan.primitive.execute(runtime_->stream);
  if (bias && plan.bias_after) {
    const std::array<int64_t, 4> dims{q.dims[0], q.dims[1], q.dims[2], k.dims[2]};
    // The bias's strides, 0 along a broadcast axis.
    std::array<int64_t, 4> strides{};
    int64_t stride = 1;
    for (int axis = 3; axis >= 0; --axis) {
      strides[axis] = bias_dims[axis] == 1 ? 0 : stride;
      stride *= bias_dims[axis];
    }
    float* out = scores;
    for (int64_t b = 0; b < dims[0]; ++b) {
      for (int64_t h = 0; h < dims[1]; ++h) {
        for (int64_t i = 0; i < dims[2]; ++i) {
          const float* row = bias + b * strides[0] + h * strides[1] + i * strides[2];
          for (int64_t j = 0; j < dims[3]; ++j) *out++ += row[j * strides[3]];
        }
      }
    }
  }
}

void AttentionCore::context(const float* probabilities, const View4& v, const View4& out,
                            const View4Bf16& v16) {
  const bool in_bf16 = v16.data != nullptr;
  const ContextKey key{shape_of(v),
                       shape_of(out),
                       out.dims[2],
                       in_bf16,
                       in_bf16 ? v16.strides : std::array<int64_t, 4>{},
                       current_threads()};
  ContextPlan& plan = context_.get(key, [&] {
    const dnnl::engine& engine = runtime_->engine;
    const memory::desc out_desc = desc_of(key.out);
    std::deque<dnnl::matmul::desc> descriptions;  // kept while searched, as in scores()
    auto primitive_desc = [&](memory::data_type type) {
      const memory::desc src({v.dims[0], v.dims[1], out.dims[2], v.dims[2]}, type, tag::abcd);
      const memory::desc weights =
          type == bf16 ? desc_of(restrided(key.v, key.v16_strides), bf16) : desc_of(key.v);
      descriptions.emplace_back(src, weights, out_desc);
      return dnnl::matmul::primitive_desc(descriptions.back(), engine);
    };
    ContextPlan made;
    dnnl::matmul::primitive_desc pd;
    if (key.bf16) {
      pd = primitive_desc(bf16);
      made.bf16 = choose_implementation(pd);
    }
    if (!made.bf16) {
      pd = primitive_desc(f32);
      require_implementation(pd,
                             "attention context for " + std::to_string(out.dims[2]) + " queries");
    }
    std::unordered_map<int, memory> args{
        {DNNL_ARG_SRC, memory(pd.src_desc(), engine, nullptr)},
        {DNNL_ARG_WEIGHTS, memory(pd.weights_desc(), engine, nullptr)},
        {DNNL_ARG_DST, memory(out_desc, engine, nullptr)}};
    made.primitive = BoundPrimitive(dnnl::matmul(pd), std::move(args));
    return made;
  });
  context_in_bf16_ = plan.bf16;
  const void* source = probabilities;
  const void* values = v.data;
  if (plan.bf16) {
    const int64_t count = v.dims[0] * v.dims[1] * out.dims[2] * v.dims[2];
    probabilities16_.reserve(static_cast<size_t>(count + 1) / 2);
    to_bf16_(probabilities, count, probabilities16_.data());
    source = probabilities16_.data();
    values = v16.data;
  }
  plan.primitive.bind(DNNL_ARG_SRC, source)
      .bind(DNNL_ARG_WEIGHTS, values)
      .bind(DNNL_ARG_DST, out.data)
      .execute(runtime_->stream);
}

}  // namespace tinyenc::ops
