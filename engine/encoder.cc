#include "engine/encoder.h"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "engine/pe/attention_bias.h"
#include "engine/pe/kernels.h"

namespace tinyenc {
namespace {

using Clock = std::chrono::steady_clock;

// Adds the time since `start` to a stage counter (when timing is on) and restarts the clock.
class Stopwatch {
 public:
  explicit Stopwatch(StageTimes* times) : times_(times), start_(Clock::now()) {}
  void lap(double StageTimes::*stage) {
    if (!times_) return;
    const Clock::time_point now = Clock::now();
    times_->*stage += std::chrono::duration<double>(now - start_).count();
    start_ = now;
  }

 private:
  StageTimes* times_;
  Clock::time_point start_;
};

Epilogue epilogue_of(Activation activation) {
  switch (activation) {
    case Activation::kGeluTanh:
      return Epilogue::kGeluTanh;
    case Activation::kRelu:
      return Epilogue::kRelu;
    case Activation::kGeluErf:
      break;
  }
  return Epilogue::kGeluErf;
}

void require(bool present, const std::string& what) {
  if (!present) throw std::invalid_argument("missing weights: " + what);
}

void require_linear(const LinearWeights& linear, int64_t out, int64_t in, const std::string& what) {
  require(linear.weight != nullptr, what);
  if (linear.out_features != out || linear.in_features != in) {
    throw std::invalid_argument(
        what + ": expected [" + std::to_string(out) + ", " + std::to_string(in) + "], got [" +
        std::to_string(linear.out_features) + ", " + std::to_string(linear.in_features) + "]");
  }
}

}  // namespace

struct Encoder::Layer {
  std::vector<float> qkv_weight;  // [3D, D]: query, key and value rows stacked
  std::vector<float> qkv_bias;    // [3D]
  Linear qkv;
  Linear attention_output;
  LayerNorm attention_norm;
  Linear ffn_in;
  Linear ffn_out;
  LayerNorm ffn_norm;

  Layer(Runtime& runtime, const EncoderConfig& c, const LayerWeights& w, std::vector<float> weight,
        std::vector<float> bias)
      : qkv_weight(std::move(weight)),
        qkv_bias(std::move(bias)),
        qkv(runtime, qkv_weight.data(), qkv_bias.data(), 3 * c.d_model, c.d_model),
        attention_output(runtime, w.attention_output.weight, w.attention_output.bias, c.d_model,
                         c.d_model),
        attention_norm(runtime, w.attention_norm.gamma, w.attention_norm.beta, c.d_model,
                       c.layer_norm_eps),
        ffn_in(runtime, w.ffn_in.weight, w.ffn_in.bias, c.ffn_dim, c.d_model),
        ffn_out(runtime, w.ffn_out.weight, w.ffn_out.bias, c.d_model, c.ffn_dim),
        ffn_norm(runtime, w.ffn_norm.gamma, w.ffn_norm.beta, c.d_model, c.layer_norm_eps) {}
};

Encoder::Encoder(EncoderConfig config, EncoderWeights weights)
    : config_(std::move(config)),
      weights_(std::move(weights)),
      attention_core_(runtime_),
      softmax_(runtime_) {
  validate(config_);
  const EncoderConfig& c = config_;
  const int64_t d = c.d_model;
  const PositionEncodingConfig& pe = c.position_encoding;
  require(weights_.token_embeddings != nullptr, "token embeddings");
  if (c.embedding_layer_norm) {
    require(weights_.embedding_norm.gamma && weights_.embedding_norm.beta, "embedding LayerNorm");
  }
  if (pe.kind == PositionEncodingKind::kLearned) {
    require(weights_.position_embeddings != nullptr, "position embeddings");
  }
  if (pe.kind == PositionEncodingKind::kRelative) {
    require(weights_.relative_bias != nullptr, "relative attention bias");
  }
  if (weights_.layers.size() != static_cast<size_t>(c.layers)) {
    throw std::invalid_argument("weights hold " + std::to_string(weights_.layers.size()) +
                                " layers, config says " + std::to_string(c.layers));
  }
  for (int64_t l = 0; l < c.layers; ++l) {
    const LayerWeights& w = weights_.layers[static_cast<size_t>(l)];
    const std::string name = "layer " + std::to_string(l) + " ";
    require_linear(w.query, d, d, name + "query");
    require_linear(w.key, d, d, name + "key");
    require_linear(w.value, d, d, name + "value");
    require_linear(w.attention_output, d, d, name + "attention output");
    require_linear(w.ffn_in, c.ffn_dim, d, name + "ffn in");
    require_linear(w.ffn_out, d, c.ffn_dim, name + "ffn out");
    require(w.attention_norm.gamma && w.attention_norm.beta, name + "attention LayerNorm");
    require(w.ffn_norm.gamma && w.ffn_norm.beta, name + "ffn LayerNorm");
    // One fused QKV matmul: stack the three [D, D] matrices (and biases) once, at load.
    std::vector<float> weight(static_cast<size_t>(3 * d * d));
    std::vector<float> bias(static_cast<size_t>(3 * d), 0.0f);
    int part = 0;
    for (const LinearWeights* linear : {&w.query, &w.key, &w.value}) {
      std::copy(linear->weight, linear->weight + d * d, weight.begin() + part * d * d);
      if (linear->bias) std::copy(linear->bias, linear->bias + d, bias.begin() + part * d);
      ++part;
    }
    layers_.push_back(std::make_unique<Layer>(runtime_, c, w, std::move(weight), std::move(bias)));
  }
  if (c.final_layer_norm) {
    require(weights_.final_norm.gamma && weights_.final_norm.beta, "final LayerNorm");
    final_norm_ = std::make_unique<LayerNorm>(runtime_, weights_.final_norm.gamma,
                                              weights_.final_norm.beta, d, c.layer_norm_eps);
  }
  if (c.has_pooler) {
    require_linear(weights_.pooler, d, d, "pooler");
    pooler_ =
        std::make_unique<Linear>(runtime_, weights_.pooler.weight, weights_.pooler.bias, d, d);
  }
  if (c.num_labels > 0) {
    require_linear(weights_.classifier, c.num_labels, d, "classifier");
    classifier_ = std::make_unique<Linear>(runtime_, weights_.classifier.weight,
                                           weights_.classifier.bias, c.num_labels, d);
  }
  if (pe.kind == PositionEncodingKind::kSinusoidal) sinusoidal_.emplace(d, pe.sinusoidal);
  if (pe.kind == PositionEncodingKind::kRope) rope_.emplace(c.rotary_dim(), pe.rope.theta);
  if (pe.kind == PositionEncodingKind::kAlibi) alibi_slopes_ = alibi_slopes(c.heads);
}

Encoder::~Encoder() = default;

int64_t Encoder::parameter_count() const {
  const EncoderConfig& c = config_;
  const int64_t d = c.d_model;
  int64_t count = c.vocab_size * d + c.type_vocab_size * d;
  if (c.embedding_layer_norm) count += 2 * d;
  if (c.position_encoding.kind == PositionEncodingKind::kLearned) {
    count += c.position_encoding.max_positions * d;
  }
  if (c.position_encoding.kind == PositionEncodingKind::kRelative) {
    count += c.position_encoding.relative.num_buckets * c.heads;
  }
  const int64_t per_layer = 4 * (d * d + d) + 2 * c.ffn_dim * d + c.ffn_dim + d + 4 * d;
  count += c.layers * per_layer;
  if (c.final_layer_norm) count += 2 * d;
  if (c.has_pooler) count += d * d + d;
  count += c.num_labels * (d + 1);
  return count;
}

void Encoder::prepare(const EncoderInput& input) {
  const int64_t batch = input.batch, seq = input.seq;
  if (batch <= 0 || seq <= 0 || input.ids == nullptr) {
    throw std::invalid_argument("empty input: batch and sequence length must be > 0");
  }
  const PositionEncodingConfig& pe = config_.position_encoding;
  if (pe.kind == PositionEncodingKind::kLearned && seq + pe.padding_idx + 1 > pe.max_positions) {
    throw std::out_of_range("input of " + std::to_string(seq) + " tokens is longer than the " +
                            std::to_string(pe.max_positions - pe.padding_idx - 1) +
                            " positions the model has (max_position_embeddings)");
  }
  lengths_.assign(static_cast<size_t>(batch), static_cast<int32_t>(seq));
  bool padded = false;
  for (int64_t b = 0; b < batch; ++b) {
    if (!input.lengths) break;
    const int32_t length = input.lengths[b];
    if (length < 1 || length > seq) {
      throw std::out_of_range("lengths[" + std::to_string(b) + "] = " + std::to_string(length) +
                              " is outside [1, " + std::to_string(seq) + "]");
    }
    lengths_[static_cast<size_t>(b)] = length;
    padded = padded || length < seq;
  }

  const int64_t d = config_.d_model, tokens = batch * seq;
  position_ids_.resize(static_cast<size_t>(tokens));
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t t = 0; t < seq; ++t) {
      // RoBERTa counts real tokens from padding_idx + 1 and gives pads padding_idx.
      const bool real = t < lengths_[static_cast<size_t>(b)];
      position_ids_[static_cast<size_t>(b * seq + t)] = static_cast<int32_t>(
          pe.padding_idx < 0 ? t : (real ? pe.padding_idx + 1 + t : pe.padding_idx));
    }
  }
  key_bias_.clear();
  if (padded) {
    key_bias_.resize(static_cast<size_t>(tokens));
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t t = 0; t < seq; ++t) {
        key_bias_[static_cast<size_t>(b * seq + t)] =
            t < lengths_[static_cast<size_t>(b)] ? 0.0f : -std::numeric_limits<float>::infinity();
      }
    }
  }
  if (seq != seq_) {
    if (pe.kind == PositionEncodingKind::kAlibi) {
      distance_bias_ = alibi_distance_bias(alibi_slopes_, seq, seq);
    } else if (pe.kind == PositionEncodingKind::kRelative) {
      distance_bias_ =
          relative_distance_bias(weights_.relative_bias, config_.heads, pe.relative, seq, seq);
    }
    if (rope_) rope_->reserve(seq);
    if (sinusoidal_) sinusoidal_->rows(seq);
  }
  batch_ = batch;
  seq_ = seq;
  const size_t activations = static_cast<size_t>(tokens * d);
  hidden_.reserve(activations);
  residual_.reserve(activations);
  normed_.reserve(activations);
  context_.reserve(activations);
  qkv_.reserve(3 * activations);
  ffn_.reserve(static_cast<size_t>(tokens * config_.ffn_dim));
  scores_.reserve(static_cast<size_t>(batch * config_.heads * seq * seq));
}

void Encoder::embed(const EncoderInput& input) {
  const EncoderConfig& c = config_;
  const PositionEncodingConfig& pe = c.position_encoding;
  EmbeddingArgs args;
  args.tokens = input.batch * input.seq;
  args.d_model = c.d_model;
  args.token_ids = input.ids;
  args.token_table = weights_.token_embeddings;
  args.vocab_size = c.vocab_size;
  args.scale = pe.scale_embeddings ? std::sqrt(static_cast<float>(c.d_model)) : 1.0f;
  if (pe.kind == PositionEncodingKind::kSinusoidal) {
    args.position_table = sinusoidal_->rows(input.seq);
    args.position_rows = sinusoidal_->positions();
  } else if (pe.kind == PositionEncodingKind::kLearned) {
    args.position_table = weights_.position_embeddings;
    args.position_rows = pe.max_positions;
  }
  args.position_ids = position_ids_.data();
  if (weights_.token_type_embeddings && c.type_vocab_size > 0) {
    args.token_type_table = weights_.token_type_embeddings;
    args.token_type_rows = c.type_vocab_size;
    args.token_type_ids = input.token_types;
  }
  if (c.embedding_layer_norm) {
    args.gamma = weights_.embedding_norm.gamma;
    args.beta = weights_.embedding_norm.beta;
    args.epsilon = c.layer_norm_eps;
  }
  args.out = hidden_.data();
  embed_tokens(args);
}

// softmax(q k^T / sqrt(head_dim) + bias) v, per head, reading q, k and v in place from the fused
// QKV rows [B, T, 3, H, head_dim] and writing the context as [B, T, H, head_dim] = [B, T, D].
void Encoder::attention(Layer& layer, const float* x, float* context, const ForwardOptions& options,
                        EncoderOutput& output) {
  const EncoderConfig& c = config_;
  const int64_t batch = batch_, seq = seq_, d = c.d_model, heads = c.heads, dh = c.head_dim();
  float* qkv = qkv_.data();
  Stopwatch clock(options.times);
  layer.qkv(x, batch * seq, qkv);
  clock.lap(&StageTimes::qkv);

  if (rope_) {
    RopeArgs rope;
    rope.tokens = batch * seq;
    rope.heads = heads;
    rope.head_dim = dh;
    rope.rotary_dim = c.rotary_dim();
    rope.pairing = c.position_encoding.rope.pairing;
    rope.q = qkv;
    rope.q_stride = 3 * d;
    rope.k = qkv + d;
    rope.k_stride = 3 * d;
    rope.position_ids = position_ids_.data();
    rope.cos = rope_->cos();
    rope.sin = rope_->sin();
    rope.table_positions = rope_->positions();
    rotate_queries_keys(rope);
  }
  const auto head_view = [&](const float* base) {
    return View4{base, {batch, heads, seq, dh}, {seq * 3 * d, dh, 3 * d, 1}};
  };
  float* scores = scores_.data();
  attention_core_.scores(
      head_view(qkv), head_view(qkv + d), 1.0f / std::sqrt(static_cast<float>(dh)),
      key_bias_.empty() ? nullptr : key_bias_.data(), {batch, 1, 1, seq}, scores);
  if (!distance_bias_.empty()) {
    add_distance_bias({scores, batch, heads, seq, seq, distance_bias_.data()});
  }
  softmax_(scores, batch * heads * seq, seq);
  if (options.attention_probabilities) {
    output.attention.emplace_back(scores, scores + batch * heads * seq * seq);
  }
  attention_core_.context(scores, head_view(qkv + 2 * d),
                          View4{context, {batch, heads, seq, dh}, {seq * d, dh, d, 1}});
  clock.lap(&StageTimes::attention);
}

EncoderOutput Encoder::forward(const EncoderInput& input, const ForwardOptions& options) {
  Stopwatch clock(options.times);  // per-shape preparation counts as part of the embedding
  prepare(input);
  const EncoderConfig& c = config_;
  const int64_t tokens = batch_ * seq_, d = c.d_model;
  EncoderOutput output;
  output.batch = batch_;
  output.seq = seq_;
  output.d_model = d;
  output.heads = c.heads;
  const auto keep_hidden = [&](const float* x) {
    if (options.layer_hidden_states) output.layer_hidden.emplace_back(x, x + tokens * d);
  };

  embed(input);
  clock.lap(&StageTimes::embed);

  // x is the running hidden state; `other` receives each sub-layer's residual sum.
  float* x = hidden_.data();
  float* other = residual_.data();
  float* normed = normed_.data();
  float* context = context_.data();
  float* ffn = ffn_.data();
  const Epilogue activation = epilogue_of(c.activation);
  for (auto& layer_pointer : layers_) {
    Layer& layer = *layer_pointer;
    keep_hidden(x);
    if (c.norm_first) {
      // Pre-LN: x = x + Attention(LN(x)); x = x + FFN(LN(x))
      layer.attention_norm(x, tokens, normed);
      clock.lap(&StageTimes::norms);
      attention(layer, normed, context, options, output);
      clock = Stopwatch(options.times);
      layer.attention_output(context, tokens, other, Epilogue::kNone, x);
      clock.lap(&StageTimes::output_projection);
      std::swap(x, other);
      layer.ffn_norm(x, tokens, normed);
      clock.lap(&StageTimes::norms);
      layer.ffn_in(normed, tokens, ffn, activation);
      layer.ffn_out(ffn, tokens, other, Epilogue::kNone, x);
      clock.lap(&StageTimes::ffn);
      std::swap(x, other);
    } else {
      // Post-LN (BERT): x = LN(x + Attention(x)); x = LN(x + FFN(x))
      attention(layer, x, context, options, output);
      clock = Stopwatch(options.times);
      layer.attention_output(context, tokens, other, Epilogue::kNone, x);
      clock.lap(&StageTimes::output_projection);
      layer.attention_norm(other, tokens, x);
      clock.lap(&StageTimes::norms);
      layer.ffn_in(x, tokens, ffn, activation);
      layer.ffn_out(ffn, tokens, other, Epilogue::kNone, x);
      clock.lap(&StageTimes::ffn);
      layer.ffn_norm(other, tokens, x);
      clock.lap(&StageTimes::norms);
    }
  }
  if (final_norm_) {
    (*final_norm_)(x, tokens, x);
    clock.lap(&StageTimes::norms);
  }
  keep_hidden(x);
  output.last_hidden.assign(x, x + tokens * d);
  pool_and_classify(input, output);
  check_finite(output);
  clock.lap(&StageTimes::head);
  return output;
}

void Encoder::check_finite(const EncoderOutput& output) const {
  const auto finite = [](const std::vector<float>& values, int64_t begin, int64_t count) {
    bool all = true;  // no early exit: the loop vectorizes, and errors are rare
    for (int64_t i = begin; i < begin + count; ++i) all &= std::isfinite(values[i]);
    return all;
  };
  const int64_t d = config_.d_model, labels = config_.num_labels;
  for (int64_t b = 0; b < batch_; ++b) {
    const char* what = nullptr;
    if (!finite(output.last_hidden, b * seq_ * d, lengths_[static_cast<size_t>(b)] * d)) {
      what = "the last hidden state";
    } else if (!output.pooled.empty() && !finite(output.pooled, b * d, d)) {
      what = "the pooled output";
    } else if (!output.logits.empty() && !finite(output.logits, b * labels, labels)) {
      what = "the logits";
    }
    if (what) {
      throw NonFiniteOutputError(
          b, std::string(what) + " holds NaN or Inf: the weights overflow float32 on this input");
    }
  }
}

void Encoder::pool_and_classify(const EncoderInput& input, EncoderOutput& output) {
  (void)input;
  const EncoderConfig& c = config_;
  const int64_t batch = batch_, seq = seq_, d = c.d_model;
  if (c.pooling == Pooling::kNone) return;
  std::vector<float> pooled(static_cast<size_t>(batch * d), 0.0f);
  const float* hidden = output.last_hidden.data();
  for (int64_t b = 0; b < batch; ++b) {
    float* row = pooled.data() + b * d;
    if (c.pooling == Pooling::kMean) {
      // Mean over the sequence's own tokens: padding never enters the average.
      const int64_t length = lengths_[static_cast<size_t>(b)];
      for (int64_t t = 0; t < length; ++t) {
        const float* token = hidden + (b * seq + t) * d;
        for (int64_t i = 0; i < d; ++i) row[i] += token[i];
      }
      for (int64_t i = 0; i < d; ++i) row[i] /= static_cast<float>(length);
    } else {
      std::copy(hidden + b * seq * d, hidden + b * seq * d + d, row);  // [CLS]
    }
  }
  if (c.pooling == Pooling::kPooler) {
    std::vector<float> dense(pooled.size());
    (*pooler_)(pooled.data(), batch, dense.data(), Epilogue::kTanh);
    pooled.swap(dense);
  }
  output.pooled = std::move(pooled);
  if (!classifier_) return;
  const int64_t labels = c.num_labels;
  output.logits.resize(static_cast<size_t>(batch * labels));
  (*classifier_)(output.pooled.data(), batch, output.logits.data());
  output.probabilities.resize(output.logits.size());
  for (int64_t b = 0; b < batch; ++b) {
    const float* logits = output.logits.data() + b * labels;
    float* probabilities = output.probabilities.data() + b * labels;
    const float top = *std::max_element(logits, logits + labels);
    double sum = 0.0;
    for (int64_t i = 0; i < labels; ++i) sum += std::exp(static_cast<double>(logits[i] - top));
    for (int64_t i = 0; i < labels; ++i) {
      probabilities[i] = static_cast<float>(std::exp(static_cast<double>(logits[i] - top)) / sum);
    }
  }
}

void set_threads(int threads) {
  if (threads <= 0) {
    // Physical cores: hyper-threads share one core's FMA units and only add contention.
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    threads = online > 0 ? static_cast<int>(online) : 1;
  }
  omp_set_num_threads(threads);
}

}  // namespace tinyenc
