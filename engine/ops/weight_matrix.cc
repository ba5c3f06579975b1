#include "engine/ops/weight_matrix.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "engine/ops/tile_product.h"

namespace tinyenc {

using dnnl::memory;

namespace {

void check_source(const LinearSource& s) {
  const int forms = (s.f32 != nullptr) + (s.bf16 != nullptr) + (s.s8 != nullptr);
  if (forms != 1 || (s.s8 && !s.scales) || s.out_features <= 0 || s.in_features <= 0) {
    throw std::invalid_argument(
        "Linear: expected exactly one weight form (f32, bf16, or s8 with scales) and a "
        "non-empty shape, got " +
        std::to_string(forms) + " forms, shape [" + std::to_string(s.out_features) + ", " +
        std::to_string(s.in_features) + "]");
  }
}

}  // namespace

StackedSource::StackedSource(const std::vector<LinearSource>& parts) {
  int64_t out = 0;
  const int64_t in = parts.at(0).in_features;
  const std::optional<ComputeDtype> first = parts.at(0).form();
  bool one_form = true;
  for (const LinearSource& part : parts) {
    check_source(part);
    if (part.in_features != in) throw std::invalid_argument("stacked Linear: in_features differ");
    out += part.out_features;
    one_form &= part.form() == first;
  }
  // One common form stays in it, scales with it; mixed forms become f32.
  const ComputeDtype form = one_form ? *first : ComputeDtype::kF32;
  const DtypeTraits& traits = dtype_traits(form);
  values_.resize(static_cast<size_t>(out * in * traits.weight_bytes));
  std::byte* row = values_.data();
  for (const LinearSource& p : parts) {
    const int64_t bytes = p.out_features * in * traits.weight_bytes;
    if (one_form) {
      std::copy_n(static_cast<const std::byte*>(p.values()), bytes, row);
      if (traits.channel_scales) scales_.insert(scales_.end(), p.scales, p.scales + p.out_features);
    } else {
      auto* f32 = reinterpret_cast<float*>(row);
      for (int64_t o = 0; o < p.out_features; ++o) {
        for (int64_t i = 0; i < in; ++i) f32[o * in + i] = p.at(o, i);
      }
    }
    row += bytes;
  }
  source_ = LinearSource::in_form(form, values_.data(), scales_.data(), out, in);
}

void StackedSource::release() {
  std::vector<std::byte>().swap(values_);
  std::vector<float>().swap(scales_);
  source_ = LinearSource();
}

WeightMatrix::WeightMatrix(Runtime& runtime, const LinearSource& s, ComputeDtype dtype)
    : runtime_(&runtime), dtype_(dtype), out_(s.out_features), in_(s.in_features) {
  check_source(s);
  const DtypeTraits& traits = dtype_traits(dtype);
  const ComputeDtype form = *s.form();
  if (form == dtype) {
    data_ = s.values();
    scales_ = s.scales;
  } else {
    // The source as f32 (kept by pointer when it is f32 already), then in `dtype`'s storage.
    const float* widened = s.f32;
    if (!widened) {
      f32_.resize(static_cast<size_t>(out_ * in_));
      dtype_traits(form).to_f32(s.values(), s.scales, out_, in_, f32_.data());
      widened = f32_.data();
    }
    if (dtype == ComputeDtype::kF32) {
      data_ = widened;
    } else {
      own_.resize(static_cast<size_t>(out_ * in_ * traits.weight_bytes));
      if (traits.channel_scales) own_scales_.resize(static_cast<size_t>(out_));
      traits.from_f32(widened, out_, in_, own_.data(), own_scales_.data());
      data_ = own_.data();
      scales_ = traits.channel_scales ? own_scales_.data() : nullptr;
      // The widened matrix was only a step on the way.
      std::vector<float>().swap(f32_);
    }
  }
  if (traits.channel_scales) {
    // What a zero point in the activations adds to each output: the sum of its row.
    const auto* q = static_cast<const int8_t*>(data_);
    row_sums_.assign(static_cast<size_t>(out_), 0);
    for (int64_t o = 0; o < out_; ++o) {
      int32_t sum = 0;
      for (int64_t i = 0; i < in_; ++i) sum += q[o * in_ + i];
      row_sums_[static_cast<size_t>(o)] = sum;
    }
  }
  keeps_source_ = data_ == s.values();
}

WeightMatrix::WeightMatrix(Runtime& runtime, const float* data, int64_t out_features,
                           int64_t in_features)
    : WeightMatrix(runtime, LinearSource::of_f32(data, out_features, in_features),
                   ComputeDtype::kF32) {}

const memory& WeightMatrix::packed(const memory::desc& desc) {
  for (const auto& [packed_desc, packed] : packed_) {
    if (packed_desc == desc) return packed;
  }
  // The row-major [out, in] matrix seen with the dims of `desc`: a 1x1 convolution's weights
  // are [out, in, 1], a matmul's are [in, out] (torch's matrix transposed).
  const memory::dims dims = desc.dims();
  const auto plain = dims.size() == 3 ? memory::format_tag::abc : memory::format_tag::ba;
  memory source(memory::desc(dims, data_type(), plain), runtime_->engine, const_cast<void*>(data_));
  memory packed(desc, runtime_->engine);
  dnnl::reorder(source, packed).execute(runtime_->stream, source, packed);
  runtime_->stream.wait();
  packed_.emplace_back(desc, std::move(packed));
  return packed_.back().second;
}

const std::byte* WeightMatrix::tiles() {
  if (tiles_.empty()) tiles_ = ops::tiles::pack(dtype_, data_, out_, in_);
  return tiles_.data();
}

}  // namespace tinyenc
