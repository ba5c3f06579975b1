#include "engine/ops/weight_matrix.h"

#include <stdexcept>
#include <string>

#include "engine/ops/quantize.h"

namespace tinyenc {

using dnnl::memory;

LinearSource LinearSource::of(const LinearWeights& w) {
  LinearSource source;
  source.f32 = w.weight;
  source.bf16 = w.weight_bf16;
  source.s8 = w.weight_s8;
  source.scales = w.weight_scales;
  source.out_features = w.out_features;
  source.in_features = w.in_features;
  return source;
}

LinearSource LinearSource::of_f32(const float* weight, int64_t out_features, int64_t in_features) {
  LinearSource source;
  source.f32 = weight;
  source.out_features = out_features;
  source.in_features = in_features;
  return source;
}

float LinearSource::at(int64_t o, int64_t i) const {
  const int64_t index = o * in_features + i;
  if (f32) return f32[index];
  if (bf16) return f32_from_bf16(bf16[index]);
  return static_cast<float>(s8[index]) * scales[o];
}

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
  bool all_f32 = true, all_bf16 = true, all_s8 = true;
  for (const LinearSource& part : parts) {
    check_source(part);
    if (part.in_features != in) throw std::invalid_argument("stacked Linear: in_features differ");
    out += part.out_features;
    all_f32 &= part.f32 != nullptr;
    all_bf16 &= part.bf16 != nullptr;
    all_s8 &= part.s8 != nullptr;
  }
  source_.out_features = out;
  source_.in_features = in;
  const auto size = static_cast<size_t>(out * in);
  if (all_bf16) {
    bf16_.reserve(size);
    for (const LinearSource& p : parts) {
      bf16_.insert(bf16_.end(), p.bf16, p.bf16 + p.out_features * in);
    }
    source_.bf16 = bf16_.data();
  } else if (all_s8) {
    s8_.reserve(size);
    for (const LinearSource& p : parts) {
      s8_.insert(s8_.end(), p.s8, p.s8 + p.out_features * in);
      scales_.insert(scales_.end(), p.scales, p.scales + p.out_features);
    }
    source_.s8 = s8_.data();
    source_.scales = scales_.data();
  } else {
    f32_.reserve(size);
    for (const LinearSource& p : parts) {
      if (all_f32) {
        f32_.insert(f32_.end(), p.f32, p.f32 + p.out_features * in);
        continue;
      }
      for (int64_t o = 0; o < p.out_features; ++o) {
        for (int64_t i = 0; i < in; ++i) f32_.push_back(p.at(o, i));
      }
    }
    source_.f32 = f32_.data();
  }
}

void StackedSource::release() {
  std::vector<float>().swap(f32_);
  std::vector<uint16_t>().swap(bf16_);
  std::vector<int8_t>().swap(s8_);
  std::vector<float>().swap(scales_);
  source_ = LinearSource();
}

WeightMatrix::WeightMatrix(Runtime& runtime, const LinearSource& s, ComputeDtype dtype)
    : runtime_(&runtime), dtype_(dtype), out_(s.out_features), in_(s.in_features) {
  check_source(s);
  const int64_t size = out_ * in_;
  // Any source as f32 (kept by pointer when it is f32 already).
  const auto widened = [&]() -> const float* {
    if (s.f32) return s.f32;
    f32_.resize(static_cast<size_t>(size));
    for (int64_t o = 0; o < out_; ++o) {
      for (int64_t i = 0; i < in_; ++i) f32_[static_cast<size_t>(o * in_ + i)] = s.at(o, i);
    }
    return f32_.data();
  };
  switch (dtype) {
    case ComputeDtype::kF32:
      data_ = widened();
      break;
    case ComputeDtype::kBF16:
      if (s.bf16) {
        data_ = s.bf16;
        break;
      }
      bf16_.resize(static_cast<size_t>(size));
      convert_to_bf16(widened(), size, bf16_.data());
      data_ = bf16_.data();
      break;
    case ComputeDtype::kInt8: {
      if (s.s8) {
        data_ = s.s8;
        scales_ = s.scales;
      } else {
        s8_.resize(static_cast<size_t>(size));
        own_scales_.resize(static_cast<size_t>(out_));
        quantize_weights_s8(widened(), out_, in_, s8_.data(), own_scales_.data());
        data_ = s8_.data();
        scales_ = own_scales_.data();
      }
      const auto* q = static_cast<const int8_t*>(data_);
      row_sums_.assign(static_cast<size_t>(out_), 0);
      for (int64_t o = 0; o < out_; ++o) {
        int32_t sum = 0;
        for (int64_t i = 0; i < in_; ++i) sum += q[o * in_ + i];
        row_sums_[static_cast<size_t>(o)] = sum;
      }
      break;
    }
  }
  // For bf16 and int8 the widened matrix was only a step on the way.
  if (dtype != ComputeDtype::kF32) std::vector<float>().swap(f32_);
  keeps_source_ = data_ == s.f32 || data_ == s.bf16 || data_ == s.s8;
}

WeightMatrix::WeightMatrix(Runtime& runtime, const float* data, int64_t out_features,
                           int64_t in_features)
    : WeightMatrix(runtime, LinearSource::of_f32(data, out_features, in_features),
                   ComputeDtype::kF32) {}

memory::data_type WeightMatrix::data_type() const {
  switch (dtype_) {
    case ComputeDtype::kBF16:
      return memory::data_type::bf16;
    case ComputeDtype::kInt8:
      return memory::data_type::s8;
    case ComputeDtype::kF32:
      break;
  }
  return memory::data_type::f32;
}

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

}  // namespace tinyenc
