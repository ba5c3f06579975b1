#include "engine/encoder.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "engine/ops/weight_matrix.h"
#include "engine/pe/kernels.h"
#include "engine/pe/position_ids.h"
#include "engine/pe/registry.h"
#include "engine/threads.h"

namespace tinyenc {
namespace {

void require(bool present, const std::string& what) {
  if (!present) throw std::invalid_argument("missing weights: " + what);
}

void require_linear(const LinearWeights& linear, int64_t out, int64_t in, const std::string& what) {
  const LinearSource source = LinearSource::of(linear);
  require(source.form() && (source.scales || !dtype_traits(*source.form()).channel_scales), what);
  if (linear.out_features != out || linear.in_features != in) {
    throw std::invalid_argument(
        what + ": expected [" + std::to_string(out) + ", " + std::to_string(in) + "], got [" +
        std::to_string(linear.out_features) + ", " + std::to_string(linear.in_features) + "]");
  }
}

// Every weight the config needs is present and has the shape the config implies (the position
// encoding checks its own when it is made).
void check_weights(const EncoderConfig& c, const EncoderWeights& weights) {
  const int64_t d = c.d_model;
  require(weights.token_embeddings != nullptr, "token embeddings");
  if (c.embedding_layer_norm) {
    require(weights.embedding_norm.gamma && weights.embedding_norm.beta, "embedding LayerNorm");
  }
  if (weights.layers.size() != static_cast<size_t>(c.layers)) {
    throw std::invalid_argument("weights hold " + std::to_string(weights.layers.size()) +
                                " layers, config says " + std::to_string(c.layers));
  }
  for (int64_t l = 0; l < c.layers; ++l) {
    const LayerWeights& w = weights.layers[static_cast<size_t>(l)];
    const std::string name = "layer " + std::to_string(l) + " ";
    require_linear(w.query, d, d, name + "query");
    require_linear(w.key, d, d, name + "key");
    require_linear(w.value, d, d, name + "value");
    require_linear(w.attention_output, d, d, name + "attention output");
    require_linear(w.ffn_in, c.ffn_dim, d, name + "ffn in");
    require_linear(w.ffn_out, d, c.ffn_dim, name + "ffn out");
    require(w.attention_norm.gamma && w.attention_norm.beta, name + "attention LayerNorm");
    require(w.ffn_norm.gamma && w.ffn_norm.beta, name + "ffn LayerNorm");
  }
  if (c.final_layer_norm) {
    require(weights.final_norm.gamma && weights.final_norm.beta, "final LayerNorm");
  }
  if (c.has_pooler) require_linear(weights.pooler, d, d, "pooler");
  if (c.num_labels > 0) require_linear(weights.classifier, c.num_labels, d, "classifier");
}

}  // namespace

Encoder::Encoder(EncoderConfig config, EncoderWeights weights)
    : config_(std::move(config)), weights_(std::move(weights)) {
  validate(config_);
  check_weights(config_, weights_);
  // Never a silent emulation: a dtype this CPU cannot run is an error naming what is missing.
  if (const std::string reason = dtype_unsupported_reason(config_.dtype); !reason.empty()) {
    throw std::invalid_argument(reason);
  }
  const EncoderConfig& c = config_;
  position_encoding_ = make_position_encoding(c, weights_);
  for (const LayerWeights& layer : weights_.layers) {
    layers_.push_back(std::make_unique<EncoderLayer>(runtime_, clock_, c, layer,
                                                     *position_encoding_, workspace_));
  }
  if (c.final_layer_norm) {
    final_norm_.emplace(clock_, &StageTimes::norms, runtime_, weights_.final_norm.gamma,
                        weights_.final_norm.beta, c.d_model, c.layer_norm_eps);
  }
  if (c.has_pooler) {
    pooler_.emplace(runtime_, weights_.pooler, c.dtype);
  }
  if (c.num_labels > 0) {
    classifier_.emplace(runtime_, weights_.classifier, c.dtype);
  }
}

Encoder::~Encoder() = default;

std::string Encoder::matmul_implementation() const {
  return layers_.empty() ? std::string() : layers_.front()->feed_forward().in().implementation();
}

int64_t Encoder::parameter_count() const {
  const EncoderConfig& c = config_;
  const int64_t d = c.d_model;
  int64_t count = c.vocab_size * d + c.type_vocab_size * d;
  if (c.embedding_layer_norm) count += 2 * d;
  count += position_encoding_->parameter_count();
  const int64_t per_layer = 4 * (d * d + d) + 2 * c.ffn_dim * d + c.ffn_dim + d + 4 * d;
  count += c.layers * per_layer;
  if (c.final_layer_norm) count += 2 * d;
  if (c.has_pooler) count += d * d + d;
  count += c.num_labels * (d + 1);
  return count;
}

int64_t Encoder::weight_bytes() const {
  const EncoderConfig& c = config_;
  const int64_t d = c.d_model;
  // Each Linear's weight [out, in]: per layer query, key, value and attention output [d, d],
  // FFN in [ffn, d] and out [d, ffn]; then the pooler [d, d] and the classifier [labels, d].
  int64_t linear_elements = c.layers * (4 * d * d + 2 * c.ffn_dim * d) + c.num_labels * d;
  int64_t output_channels = c.layers * (5 * d + c.ffn_dim) + c.num_labels;
  if (c.has_pooler) {
    linear_elements += d * d;
    output_channels += d;
  }
  const int64_t float_bytes = 4 * (parameter_count() - linear_elements);
  const DtypeTraits& traits = dtype_traits(c.dtype);
  return float_bytes + traits.weight_bytes * linear_elements +
         traits.channel_bytes * output_channels;
}

EncoderOutput Encoder::forward(const EncoderInput& input, const ForwardOptions& options) {
  clock_.attach(options.times);
  {
    const StageClock::Scope embedding = clock_.time(&StageTimes::embed);
    prepare(input);
    embed(input, workspace_.hidden.data());  // x = LN(scale * token + position + token type)
  }
  float* x = workspace_.hidden.data();
  const int64_t tokens = rows_, d = config_.d_model;
  EncoderOutput output;
  output.batch = batch_;
  output.seq = seq_;
  if (packed_) output.starts = starts_;
  output.d_model = d;
  output.heads = config_.heads;
  const auto keep_hidden = [&] {
    if (options.layer_hidden_states) output.layer_hidden.emplace_back(x, x + tokens * d);
  };
  if (packed_ && options.attention_probabilities) {
    throw std::invalid_argument("attention probabilities need the padded layout, not packed");
  }
  Batch batch;
  batch.batch = batch_;
  batch.seq = seq_;
  batch.rows = rows_;
  batch.position_ids = position_ids_.data();
  batch.runs = packed_ ? &runs_ : nullptr;
  batch.key_bias = key_bias_.empty() ? nullptr : key_bias_.data();
  batch.attention_probabilities = options.attention_probabilities ? &output.attention : nullptr;

  for (const std::unique_ptr<EncoderLayer>& layer : layers_) {
    keep_hidden();
    (*layer)(x, batch);
  }
  if (final_norm_) (*final_norm_)(x, tokens, x);

  const StageClock::Scope head = clock_.time(&StageTimes::head);
  keep_hidden();
  output.last_hidden.assign(x, x + tokens * d);
  pool_and_classify(output);
  check_finite(output);
  return output;
}

void Encoder::prepare(const EncoderInput& input) {
  check_input(input);
  compute_positions();
  compute_key_bias();
  position_encoding_->prepare(seq_, position_offset_);
  int64_t attention = batch_ * seq_ * seq_;
  if (packed_) {
    attention = 0;
    for (const SequenceRun& run : runs_) {
      attention = std::max(attention, run.count * run.length * run.length);
    }
  }
  workspace_.reserve(config_, rows_, attention);
}

void check_position_offset(int64_t position_offset) {
  if (position_offset < 0 || position_offset > kMaxPositionOffset) {
    throw std::out_of_range("position offset " + std::to_string(position_offset) +
                            " is outside [0, " + std::to_string(kMaxPositionOffset) + "]");
  }
}

void Encoder::check_input(const EncoderInput& input) {
  const int64_t batch = input.batch;
  check_position_offset(input.position_offset);
  position_offset_ = input.position_offset;
  packed_ = input.packed;
  if (packed_) {
    if (batch <= 0 || input.ids == nullptr || input.lengths == nullptr) {
      throw std::invalid_argument("empty input: a packed batch needs > 0 sequences and lengths");
    }
    lengths_.assign(input.lengths, input.lengths + batch);
    starts_.clear();
    runs_.clear();
    int64_t rows = 0, seq = 0;
    for (int64_t b = 0; b < batch; ++b) {
      const int64_t length = lengths_[static_cast<size_t>(b)];
      if (length < 1) {
        throw std::out_of_range("lengths[" + std::to_string(b) + "] = " + std::to_string(length) +
                                " is not a positive length");
      }
      starts_.push_back(rows);
      if (runs_.empty() || runs_.back().length != length) runs_.push_back({rows, 0, length});
      ++runs_.back().count;
      rows += length;
      seq = std::max(seq, length);
    }
    batch_ = batch;
    seq_ = seq;
    rows_ = rows;
    return;
  }
  const int64_t seq = input.seq;
  if (batch <= 0 || seq <= 0 || input.ids == nullptr) {
    throw std::invalid_argument("empty input: batch and sequence length must be > 0");
  }
  lengths_.assign(static_cast<size_t>(batch), static_cast<int32_t>(seq));
  starts_.clear();
  for (int64_t b = 0; b < batch; ++b) {
    if (input.lengths) {
      const int32_t length = input.lengths[b];
      if (length < 1 || length > seq) {
        throw std::out_of_range("lengths[" + std::to_string(b) + "] = " + std::to_string(length) +
                                " is outside [1, " + std::to_string(seq) + "]");
      }
      lengths_[static_cast<size_t>(b)] = length;
    }
    starts_.push_back(b * seq);
  }
  batch_ = batch;
  seq_ = seq;
  rows_ = batch * seq;
}

void Encoder::compute_positions() {
  position_ids_.resize(static_cast<size_t>(rows_));
  const int64_t padding_idx = config_.position_encoding.padding_idx;
  if (packed_) {
    packed_position_ids(lengths_.data(), batch_, padding_idx, position_ids_.data(),
                        position_offset_);
  } else {
    position_ids(lengths_.data(), batch_, seq_, padding_idx, position_ids_.data(),
                 position_offset_);
  }
}

void Encoder::compute_key_bias() {
  key_bias_.clear();
  const bool padded = !packed_ && std::any_of(lengths_.begin(), lengths_.end(),
                                              [&](int32_t length) { return length < seq_; });
  if (!padded) return;
  key_bias_.resize(static_cast<size_t>(batch_ * seq_));
  for (int64_t b = 0; b < batch_; ++b) {
    for (int64_t t = 0; t < seq_; ++t) {
      key_bias_[static_cast<size_t>(b * seq_ + t)] =
          t < lengths_[static_cast<size_t>(b)] ? 0.0f : -std::numeric_limits<float>::infinity();
    }
  }
}

void Encoder::embed(const EncoderInput& input, float* x) {
  const EncoderConfig& c = config_;
  EmbeddingArgs args;
  args.tokens = rows_;
  args.d_model = c.d_model;
  args.token_ids = input.ids;
  args.token_table = weights_.token_embeddings;
  args.vocab_size = c.vocab_size;
  args.scale =
      c.position_encoding.scale_embeddings ? std::sqrt(static_cast<float>(c.d_model)) : 1.0f;
  const PositionTable positions = position_encoding_->embedding_rows();
  args.position_table = positions.table;
  args.position_rows = positions.rows;
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
  args.out = x;
  embed_tokens(args);
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
    const size_t i = static_cast<size_t>(b);
    if (!finite(output.last_hidden, starts_[i] * d, lengths_[i] * d)) {
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

void Encoder::pool_and_classify(EncoderOutput& output) {
  const EncoderConfig& c = config_;
  const int64_t batch = batch_, d = c.d_model;
  if (c.pooling == Pooling::kNone) return;
  std::vector<float> pooled(static_cast<size_t>(batch * d), 0.0f);
  const float* hidden = output.last_hidden.data();
  for (int64_t b = 0; b < batch; ++b) {
    float* row = pooled.data() + b * d;
    if (c.pooling == Pooling::kMean) {
      // Mean over the sequence's own tokens: padding never enters the average.
      const int64_t length = lengths_[static_cast<size_t>(b)];
      for (int64_t t = 0; t < length; ++t) {
        const float* token = hidden + (starts_[static_cast<size_t>(b)] + t) * d;
        for (int64_t i = 0; i < d; ++i) row[i] += token[i];
      }
      for (int64_t i = 0; i < d; ++i) row[i] /= static_cast<float>(length);
    } else {
      const float* first = hidden + starts_[static_cast<size_t>(b)] * d;
      std::copy(first, first + d, row);  // [CLS]
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
    label_probabilities(output.logits.data() + b * labels, labels,
                        output.probabilities.data() + b * labels);
  }
}

void label_probabilities(const float* logits, int64_t labels, float* probabilities) {
  const float top = *std::max_element(logits, logits + labels);
  double sum = 0.0;
  for (int64_t i = 0; i < labels; ++i) sum += std::exp(static_cast<double>(logits[i] - top));
  for (int64_t i = 0; i < labels; ++i) {
    probabilities[i] = static_cast<float>(std::exp(static_cast<double>(logits[i] - top)) / sum);
  }
}

void set_threads(int threads) { omp_set_num_threads(resolve_threads(threads)); }

}  // namespace tinyenc
