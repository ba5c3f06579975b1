#include "engine/ops/matmul.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>

#include "engine/ops/gelu.h"
#include "engine/ops/implementation.h"
#include "engine/ops/linear_choice.h"
#include "engine/ops/quantize.h"
#include "engine/ops/tile_product.h"
#include "engine/parallel_rows.h"

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

// The post-ops are the activation, then the residual add.
int residual_argument(Epilogue epilogue) {
  return DNNL_ARG_ATTR_MULTIPLE_POST_OP(epilogue != Epilogue::kNone ? 1 : 0) | DNNL_ARG_SRC_1;
}

// The activation, then the residual add, as oneDNN post-ops for a destination `dst`.
dnnl::primitive_attr post_op_attributes(Epilogue epilogue, bool residual, const memory::desc& dst) {
  dnnl::post_ops post_ops;
  if (epilogue != Epilogue::kNone) {
    post_ops.append_eltwise(1.0f, algorithm_of(epilogue), 0.0f, 0.0f);
  }
  if (residual) post_ops.append_binary(dnnl::algorithm::binary_add, dst);
  dnnl::primitive_attr attributes;
  attributes.set_post_ops(post_ops);
  return attributes;
}

// Whether a row of activations has values far out of its bulk: its largest |x| more than
// kOutlyingRatio times its root mean square. A row of normal values has a ratio of 3 to 4 (the
// largest of 768 to 3072 draws); GELU outputs up to about 8. all-mpnet-base-v2's FFN-down
// inputs reach 102 on a few tokens where the rest of the row is around 1 (a ratio over 50): with
// one scale for that row, 127 or 255 levels over [-102, 102] leave its ordinary values a level
// or two. At 16 the second quantizations cost all-mpnet-base-v2 5-7 % and all-MiniLM-L6-v2
// nothing measurable (bench --seq 32,128 --dtype int8, one thread); at 12, 18 % and 5 %.
constexpr float kOutlyingRatio = 16.0f;

bool outlying(RowStatistics statistics, int64_t count) {
  const float largest = std::max(-statistics.range.min, statistics.range.max);
  return largest * largest >
         kOutlyingRatio * kOutlyingRatio * statistics.squares / static_cast<float>(count);
}

// The per-row passes around the int8 matmul go parallel from this many floats.
constexpr int64_t kMinParallelFloats = 1 << 14;

template <class Body>
void for_rows(int64_t rows, int64_t floats_per_row, Body&& body) {
  parallel_rows(rows, rows * floats_per_row, kMinParallelFloats, body);
}

// After a bf16 tile product: y = epilogue(y + b) (+ residual), row by row (kNone or kGeluErf).
void finish_rows(float* y, int64_t rows, int64_t out, const float* bias, Epilogue epilogue,
                 const float* residual) {
  for_rows(rows, out, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      float* row = y + r * out;
      if (bias) {
        for (int64_t o = 0; o < out; ++o) row[o] += bias[o];
      }
      if (epilogue == Epilogue::kGeluErf) gelu_erf(row, out);
      if (residual) {
        for (int64_t o = 0; o < out; ++o) row[o] += residual[r * out + o];
      }
    }
  });
}

}  // namespace

const std::string Matmul::kNoImplementation;

Matmul::Matmul(Runtime& runtime)
    : runtime_(&runtime), activation_levels_(activation_levels()), to_bf16_(runtime) {
  static_assert(kSlackRows >= tiles::kSlackRows, "the tile product reads past the rows");
}

void Matmul::operator()(const float* x, int64_t rows, WeightMatrix& weights, const float* bias,
                        float* y, Epilogue epilogue, const float* residual) {
  const ActivationForm activations = dtype_traits(weights.dtype()).activations;
  if (activations == ActivationForm::kU8PerRow) {
    rowwise_int8(x, rows, weights, bias, y, epilogue, residual);
    return;
  }
  const Key key{&weights,         weights.dtype(), bias, rows, epilogue, residual != nullptr,
                current_threads()};
  Plan& plan = plans_.get(key, [&] { return this->plan(key, weights); });
  const void* source = x;
  if (activations == ActivationForm::kBF16) {
    void* bits = activation_buffer(rows, weights.in_features(), 2);
    to_bf16_(x, rows * weights.in_features(), bits);
    source = bits;
  }
  implementation_ = &plan.implementation;
  if (plan.tiles) {
    tiles::product(key.dtype, source, rows, weights.in_features(), plan.tiles,
                   weights.out_features(), y);
    finish_rows(y, rows, weights.out_features(), bias, epilogue, residual);
    return;
  }
  plan.primitive.bind(DNNL_ARG_SRC, source).bind(DNNL_ARG_DST, y);
  if (residual) plan.primitive.bind(residual_argument(epilogue), residual);
  plan.primitive.execute(runtime_->stream);
}

void Matmul::rowwise_int8(const float* x, int64_t rows, WeightMatrix& weights, const float* bias,
                          float* y, Epilogue epilogue, const float* residual) {
  const int64_t in = weights.in_features(), out = weights.out_features();
  // Row r: x ~= s_r (q - z_r); quantized twice, + s'_r (q' - z'_r) with q' quantizing what q
  // leaves (at most half of q's step), so that the pair carries about twice the bits. Quantized
  // twice: every row of few rows, else the rows with outlying values. The second quantizations
  // are rows + 0, 1, ... of the one matmul.
  auto* levels = static_cast<uint8_t*>(activation_buffer(2 * rows, in, 1));
  row_quantizations_.resize(static_cast<size_t>(2 * rows));
  second_of_.resize(static_cast<size_t>(rows));
  for_rows(rows, in, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const RowStatistics statistics = row_statistics(x + r * in, in);
      const ActivationQuantization q =
          choose_activation_quantization(statistics.range, activation_levels_);
      quantize_activations(x + r * in, in, q, activation_levels_, levels + r * in);
      row_quantizations_[static_cast<size_t>(r)] = q;
      second_of_[static_cast<size_t>(r)] =
          rows <= kTwoPassRows || outlying(statistics, in) ? 0 : -1;
    }
  });
  twice_.clear();
  for (int64_t r = 0; r < rows; ++r) {
    int64_t& k = second_of_[static_cast<size_t>(r)];
    if (k < 0) continue;
    k = static_cast<int64_t>(twice_.size());
    twice_.push_back(r);
  }
  const int64_t second = static_cast<int64_t>(twice_.size()), total = rows + second;
  const Key key{&weights,        weights.dtype(), nullptr,          total,
                Epilogue::kNone, false,           current_threads()};
  Plan& plan = plans_.get(key, [&] { return this->plan(key, weights); });
  remainders_.reserve(static_cast<size_t>(in));
  float* remainder = remainders_.data();
  for (int64_t k = 0; k < second; ++k) {
    const int64_t r = twice_[static_cast<size_t>(k)];
    const ActivationQuantization q = row_quantizations_[static_cast<size_t>(r)];
    const uint8_t* first = levels + r * in;
    for (int64_t i = 0; i < in; ++i) {
      remainder[i] = x[r * in + i] - q.scale * static_cast<float>(first[i] - q.zero_point);
    }
    const ActivationQuantization fine =
        choose_activation_quantization(activation_range(remainder, in), activation_levels_);
    quantize_activations(remainder, in, fine, activation_levels_, levels + (rows + k) * in);
    row_quantizations_[static_cast<size_t>(rows + k)] = fine;
  }

  // The sums go into y itself when it can hold them all and no residual is read from it: y's
  // cache lines are then read and written by the dequantization, not a second buffer's too.
  const bool residual_in_y = residual && residual < y + rows * out && y < residual + rows * out;
  int32_t* sums = nullptr;
  if (second == 0 && !residual_in_y) {
    sums = reinterpret_cast<int32_t*>(y);
  } else {
    sums_.reserve(static_cast<size_t>(total * out));
    sums = reinterpret_cast<int32_t*>(sums_.data());
  }
  if (plan.tiles) {
    tiles::product(ComputeDtype::kInt8, levels, total, in, plan.tiles, out, sums);
  } else {
    plan.primitive.bind(DNNL_ARG_SRC, levels).bind(DNNL_ARG_DST, sums);
    plan.primitive.execute(runtime_->stream);
  }
  implementation_ = &plan.implementation;

  // y[r][o] = scale_w[o] s_r (S[r][o] - z_r rowsum[o]) (+ the same for its second quantization)
  // + b[o]. S - z rowsum is exact in 32 bits: |S| <= 255 * 127 * in and z rowsum as large, under
  // 2^31 up to in = 33000.
  const float* weight_scales = weights.scales();
  const int32_t* row_sums = weights.row_sums();
  // Row by row: its first share, its second if it was quantized twice, then the activation where
  // it is our own (erf-GELU, while the row is in cache) and the residual. Without an activation
  // the residual is added by the last dequantization: y = ((value + b) + value') + residual.
  // Another activation is oneDNN's, in one pass over y after, and the residual after it.
  const bool rowwise_activation = epilogue == Epilogue::kGeluErf;
  for_rows(rows, out, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t k = second_of_[static_cast<size_t>(r)];
      float* row = y + r * out;
      const float* residual_row =
          residual && epilogue == Epilogue::kNone ? residual + r * out : nullptr;
      dequantize_row(sums + r * out, row_quantizations_[static_cast<size_t>(r)], weight_scales,
                     row_sums, bias, false, k < 0 ? residual_row : nullptr, out, row);
      if (k >= 0) {
        dequantize_row(sums + (rows + k) * out, row_quantizations_[static_cast<size_t>(rows + k)],
                       weight_scales, row_sums, bias, true, residual_row, out, row);
      }
      if (rowwise_activation) {
        gelu_erf(row, out);
        if (residual) {
          for (int64_t o = 0; o < out; ++o) row[o] += residual[r * out + o];
        }
      }
    }
  });
  if (epilogue != Epilogue::kNone && !rowwise_activation) {
    BoundPrimitive& activation =
        activations_.get(ActivationKey{rows * out, epilogue, current_threads()}, [&] {
          const memory::desc data({rows * out}, memory::data_type::f32, tag::a);
          dnnl::eltwise_forward::primitive_desc pd(
              dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference,
                                          algorithm_of(epilogue), data, 0.0f, 0.0f),
              runtime_->engine);
          require_implementation(pd, "an activation over " + std::to_string(rows * out));
          const dnnl::engine& engine = runtime_->engine;
          return BoundPrimitive(dnnl::eltwise_forward(pd),
                                {{DNNL_ARG_SRC, memory(data, engine, nullptr)},
                                 {DNNL_ARG_DST, memory(data, engine, nullptr)}});
        });
    activation.bind(DNNL_ARG_SRC, y).bind(DNNL_ARG_DST, y).execute(runtime_->stream);
    if (residual) {
      for_rows(rows, out, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin * out; i < end * out; ++i) y[i] += residual[i];
      });
    }
  }
}

void* Matmul::activation_buffer(int64_t rows, int64_t in, size_t element_size) {
  const size_t bytes = static_cast<size_t>((rows + kSlackRows) * in) * element_size;
  source_.reserve((bytes + sizeof(float) - 1) / sizeof(float));
  return source_.data();
}

namespace {

using Attributes = std::function<dnnl::primitive_attr(const memory::desc& dst)>;

// The two ways to compute y[rows, out] = x[rows, in] W^T, as primitive descriptors at the first
// acceptable implementation, with their source, destination and bias descriptors.
struct Candidate {
  memory::desc src, dst, bias;
};

std::optional<dnnl::convolution_forward::primitive_desc> convolution_for(
    const dnnl::engine& engine, const DtypeTraits& traits, int64_t rows, int64_t in, int64_t out,
    bool with_bias, const Attributes& attributes, Candidate& candidate) {
  using Convolution = dnnl::convolution_forward;
  candidate.src = memory::desc({1, in, rows}, traits.activation_type, tag::acb);
  candidate.dst = memory::desc({1, out, rows}, traits.accumulator_type, tag::acb);
  candidate.bias = memory::desc({out}, memory::data_type::f32, tag::a);
  const memory::desc any_weights({out, in, 1}, traits.weight_type, tag::any);
  const auto kind = dnnl::prop_kind::forward_inference;
  const auto direct = dnnl::algorithm::convolution_direct;
  const Convolution::desc description =
      with_bias ? Convolution::desc(kind, direct, candidate.src, any_weights, candidate.bias,
                                    candidate.dst, {1}, {0}, {0})
                : Convolution::desc(kind, direct, candidate.src, any_weights, candidate.dst, {1},
                                    {0}, {0});
  Convolution::primitive_desc pd(description, attributes(candidate.dst), engine);
  // No acceptable convolution for this shape (e.g. int8 with an output count the kernels do not
  // block): the caller takes the matmul.
  if (!choose_implementation(pd)) return std::nullopt;
  return pd;
}

dnnl::matmul::primitive_desc matmul_for(const dnnl::engine& engine, const DtypeTraits& traits,
                                        int64_t rows, int64_t in, int64_t out, bool with_bias,
                                        const Attributes& attributes, Candidate& candidate) {
  candidate.src = memory::desc({rows, in}, traits.activation_type, tag::ab);
  candidate.dst = memory::desc({rows, out}, traits.accumulator_type, tag::ab);
  candidate.bias = memory::desc({1, out}, memory::data_type::f32, tag::ab);
  // torch's matrix in place, or packed once into the layout the kernel asks for.
  const memory::desc weight_desc({in, out}, traits.weight_type,
                                 traits.matmul_weights_in_place ? tag::ba : tag::any);
  const dnnl::matmul::desc description =
      with_bias ? dnnl::matmul::desc(candidate.src, weight_desc, candidate.bias, candidate.dst)
                : dnnl::matmul::desc(candidate.src, weight_desc, candidate.dst);
  dnnl::matmul::primitive_desc pd(description, attributes(candidate.dst), engine);
  require_implementation(pd, "a " + std::string(traits.name) + " Linear " + std::to_string(in) +
                                 " -> " + std::to_string(out) + " on " + std::to_string(rows) +
                                 " rows");
  return pd;
}

// Seconds of one run of `primitive` on zero-filled memory of its own descriptors' sizes, over
// cycled weights.
// In a forward pass each layer's weights come from the last-level cache or memory, not from L1
// or L2 (a base layer's are 7 to 28 MB): a trial cycles over enough copies of its weights,
// kTrialWeightBytes in all, that each call finds its copy gone from L2 (2 MB per core on the
// CPUs seen). Timed on one hot copy, oneDNN's AMX kernels looked faster than the tiles; in the
// forward pass (base, 128 tokens) they were 5-15 % slower.
constexpr int64_t kTrialWeightBytes = int64_t{16} << 20;
int64_t trial_copies(int64_t weight_bytes) {
  return std::clamp<int64_t>(kTrialWeightBytes / std::max<int64_t>(weight_bytes, 1), 1, 64);
}

class Trial {
 public:
  // bias: the candidate's bias descriptor when it has one; residual: the post-op argument its
  // residual is bound to, or 0.
  template <class PrimitiveDesc>
  Trial(const dnnl::engine& engine, const PrimitiveDesc& pd, const memory::desc* bias, int residual)
      : primitive_(pd), args_{{DNNL_ARG_SRC, zeros(engine, pd.src_desc())}} {
    const int64_t copies = trial_copies(static_cast<int64_t>(pd.weights_desc().get_size()));
    for (int64_t c = 0; c < copies; ++c) weights_.push_back(zeros(engine, pd.weights_desc()));
    const int64_t outputs = trial_copies(static_cast<int64_t>(pd.dst_desc().get_size()));
    for (int64_t c = 0; c < outputs; ++c) outputs_.push_back(zeros(engine, pd.dst_desc()));
    if (bias) args_.emplace(DNNL_ARG_BIAS, zeros(engine, *bias));
    if (residual) args_.emplace(residual, zeros(engine, pd.dst_desc()));
  }

  double seconds(dnnl::stream& stream) {
    args_[DNNL_ARG_WEIGHTS] = weights_[next_ % weights_.size()];
    args_[DNNL_ARG_DST] = outputs_[next_ % outputs_.size()];
    ++next_;
    const auto start = std::chrono::steady_clock::now();
    primitive_.execute(stream, args_);
    stream.wait();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

 private:
  static memory zeros(const dnnl::engine& engine, const memory::desc& desc) {
    memory data(desc, engine);  // oneDNN allocates desc.get_size() bytes
    std::memset(data.get_data_handle(), 0, desc.get_size());
    return data;
  }
  dnnl::primitive primitive_;
  std::unordered_map<int, memory> args_;
  std::vector<memory> weights_, outputs_;
  size_t next_ = 0;
};

// What follows the product in the layer: bias, activation, residual. oneDNN fuses them into its
// kernels as post-ops, the tiles apply them after (finish_rows); what they cost differs between
// the two (oneDNN's AVX-512 GELU against our erf-GELU pass over the rows), so a bf16 trial
// times them too. int8's are ours for every candidate.
struct Ending {
  bool bias = false;
  Epilogue epilogue = Epilogue::kNone;
  bool residual = false;
};

// Seconds of one tile product and its ending on zero-filled operands of the shape's sizes,
// over cycled weights.
class TileTrial {
 public:
  TileTrial(ComputeDtype dtype, int64_t rows, int64_t in, int64_t out, const Ending& ending)
      : dtype_(dtype), rows_(rows), in_(in), out_(out), ending_(ending) {
    const int64_t element = dtype == ComputeDtype::kBF16 ? 2 : 1;
    a_.assign(static_cast<size_t>((rows + tiles::kSlackRows) * in * element), std::byte{0});
    const std::vector<std::byte> zeros(static_cast<size_t>(out * in * element), std::byte{0});
    for (int64_t c = 0; c < trial_copies(out * in * element); ++c) {
      packed_.push_back(tiles::pack(dtype, zeros.data(), out, in));
    }
    sums_.resize(static_cast<size_t>(trial_copies(rows * out * 4)));
    for (std::vector<float>& sums : sums_) sums.assign(static_cast<size_t>(rows * out), 0.0f);
    bias_.assign(static_cast<size_t>(out), 0.0f);
    residual_.assign(static_cast<size_t>(rows * out), 0.0f);
  }
  double seconds() {
    const std::byte* packed = packed_[next_ % packed_.size()].data();
    float* sums = sums_[next_ % sums_.size()].data();
    ++next_;
    const auto start = std::chrono::steady_clock::now();
    tiles::product(dtype_, a_.data(), rows_, in_, packed, out_, sums);
    if (dtype_ != ComputeDtype::kInt8) {
      finish_rows(sums, rows_, out_, ending_.bias ? bias_.data() : nullptr, ending_.epilogue,
                  ending_.residual ? residual_.data() : nullptr);
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

 private:
  ComputeDtype dtype_;
  int64_t rows_, in_, out_;
  std::vector<std::byte> a_;
  Ending ending_;
  std::vector<std::vector<std::byte>> packed_;
  size_t next_ = 0;
  std::vector<std::vector<float>> sums_;
  std::vector<float> bias_, residual_;
};

// Which candidate runs `rows` x in x out and `ending` fastest here: each run once untimed, then
// in turn (so that a slow spell of the machine falls on all) until each has run kMinRounds
// times and kMinSeconds have passed, or kMaxRounds; the fastest best time wins. The tiles take
// part when `with_tiles`.
LinearPrimitive fastest_primitive(const dnnl::engine& engine, dnnl::stream& stream,
                                  ComputeDtype dtype, int64_t rows, int64_t in, int64_t out,
                                  const Ending& ending, bool with_tiles) {
  constexpr int kMinRounds = 3, kMaxRounds = 20;
  constexpr double kMinSeconds = 0.02;
  const DtypeTraits& traits = dtype_traits(dtype);
  const Attributes attributes = [&](const memory::desc& dst) {
    return post_op_attributes(ending.epilogue, ending.residual, dst);
  };
  const int residual = ending.residual ? residual_argument(ending.epilogue) : 0;
  Candidate made;
  std::vector<std::pair<LinearPrimitive, std::function<double()>>> candidates;
  std::optional<Trial> convolution, matmul;
  std::optional<TileTrial> tile;
  if (const auto pd =
          convolution_for(engine, traits, rows, in, out, ending.bias, attributes, made)) {
    convolution.emplace(engine, *pd, ending.bias ? &made.bias : nullptr, residual);
    candidates.emplace_back(LinearPrimitive::kConvolution,
                            [&] { return convolution->seconds(stream); });
  }
  const auto matmul_pd = matmul_for(engine, traits, rows, in, out, ending.bias, attributes, made);
  matmul.emplace(engine, matmul_pd, ending.bias ? &made.bias : nullptr, residual);
  candidates.emplace_back(LinearPrimitive::kMatmul, [&] { return matmul->seconds(stream); });
  if (with_tiles) {
    tile.emplace(dtype, rows, in, out, ending);
    candidates.emplace_back(LinearPrimitive::kTiles, [&] { return tile->seconds(); });
  }
  if (candidates.size() == 1) return candidates.front().first;
  std::vector<double> best(candidates.size(), 1e30);
  for (auto& candidate : candidates) candidate.second();
  double total = 0.0;
  for (int round = 0; round < kMaxRounds && (round < kMinRounds || total < kMinSeconds); ++round) {
    for (size_t c = 0; c < candidates.size(); ++c) {
      const double seconds = candidates[c].second();
      best[c] = std::min(best[c], seconds);
      total += seconds;
    }
  }
  const size_t fastest =
      static_cast<size_t>(std::min_element(best.begin(), best.end()) - best.begin());
  return candidates[fastest].first;
}

}  // namespace

bool Matmul::tiles_apply(const Key& key, const WeightMatrix& weights) {
  if (!tiles::available(key.dtype) ||
      !tiles::fits(key.dtype, weights.in_features(), weights.out_features())) {
    return false;
  }
  return key.dtype == ComputeDtype::kInt8 || key.epilogue == Epilogue::kNone ||
         key.epilogue == Epilogue::kGeluErf;
}

LinearPrimitive Matmul::preferred_primitive(const Key& key, const WeightMatrix& weights) {
  const DtypeTraits& traits = dtype_traits(key.dtype);
  const LinearPrimitive rule = key.rows <= traits.max_convolution_rows
                                   ? LinearPrimitive::kConvolution
                                   : LinearPrimitive::kMatmul;
  const bool with_tiles = tiles_apply(key, weights);
  switch (linear_choice_mode()) {
    case LinearChoiceMode::kConvolution:
      return LinearPrimitive::kConvolution;
    case LinearChoiceMode::kMatmul:
      return LinearPrimitive::kMatmul;
    case LinearChoiceMode::kTiles:
      return with_tiles ? LinearPrimitive::kTiles : rule;
    case LinearChoiceMode::kRule:
      return rule;
    case LinearChoiceMode::kMeasure:
      break;
  }
  const int64_t in = weights.in_features(), out = weights.out_features();
  const int64_t rows = measured_rows(key.rows);
  // With the tiles among them, the candidates are timed with the layer's ending (see Ending).
  Ending ending;
  std::string trial;
  if (with_tiles) {
    ending = Ending{key.bias != nullptr, key.epilogue, key.residual};
    trial = "with tiles";
    if (ending.bias) trial += ", bias";
    if (ending.epilogue == Epilogue::kGeluErf) trial += ", gelu_erf";
    if (ending.residual) trial += ", residual";
  }
  const std::optional<LinearPrimitive> recorded =
      recorded_linear_choice(linear_choice_key(key.dtype, in, out, rows, key.threads, trial), [&] {
        return fastest_primitive(runtime_->engine, runtime_->stream, key.dtype, rows, in, out,
                                 ending, with_tiles);
      });
  // A book written where the tiles ran may name them for a shape or epilogue they cannot take.
  if (recorded == LinearPrimitive::kTiles && !with_tiles) return rule;
  return recorded.value_or(rule);
}

Matmul::Plan Matmul::plan(const Key& key, WeightMatrix& weights) {
  const int64_t rows = key.rows, in = weights.in_features(), out = weights.out_features();
  const DtypeTraits& traits = dtype_traits(key.dtype);
  const dnnl::engine& engine = runtime_->engine;
  void* bias = const_cast<float*>(key.bias);  // oneDNN only reads it
  // The post-ops (int8 has none: rowwise_int8 does the rest), for a destination `dst`.
  const Attributes attributes = [&](const memory::desc& dst) {
    return post_op_attributes(key.epilogue, key.residual, dst);
  };

  Plan plan;
  const LinearPrimitive preferred = preferred_primitive(key, weights);
  if (preferred == LinearPrimitive::kTiles) {
    plan.tiles = weights.tiles();
    plan.implementation = key.dtype == ComputeDtype::kInt8 ? "tiles:amx_int8" : "tiles:amx_bf16";
    return plan;
  }
  dnnl::primitive primitive;
  memory weight_memory;
  Candidate candidate;
  bool chosen = false;
  if (preferred == LinearPrimitive::kConvolution) {
    if (auto pd = convolution_for(engine, traits, rows, in, out, bias != nullptr, attributes,
                                  candidate)) {
      chosen = true;
      primitive = dnnl::convolution_forward(*pd);
      plan.implementation = pd->impl_info_str();
      weight_memory = weights.packed(pd->weights_desc());
    }
  }
  if (!chosen) {
    const dnnl::matmul::primitive_desc pd =
        matmul_for(engine, traits, rows, in, out, bias != nullptr, attributes, candidate);
    primitive = dnnl::matmul(pd);
    plan.implementation = pd.impl_info_str();
    weight_memory = traits.matmul_weights_in_place
                        ? memory(pd.weights_desc(), engine, const_cast<void*>(weights.data()))
                        : weights.packed(pd.weights_desc());
  }
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, memory(candidate.src, engine, nullptr)},
                                       {DNNL_ARG_WEIGHTS, weight_memory},
                                       {DNNL_ARG_DST, memory(candidate.dst, engine, nullptr)}};
  if (bias) args.emplace(DNNL_ARG_BIAS, memory(candidate.bias, engine, bias));
  if (key.residual) {
    args.emplace(residual_argument(key.epilogue), memory(candidate.dst, engine, nullptr));
  }
  plan.primitive = BoundPrimitive(std::move(primitive), std::move(args));
  return plan;
}

}  // namespace tinyenc::ops
