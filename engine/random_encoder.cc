#include "engine/random_encoder.h"

#include <cmath>
#include <memory>
#include <random>
#include <vector>

namespace tinyenc {

std::optional<EncoderConfig> preset_config(std::string_view name) {
  struct Preset {
    std::string_view name;
    int64_t d_model, heads, layers, ffn_dim;
  };
  for (const Preset& p : {Preset{"tiny", 128, 2, 2, 512}, Preset{"mini", 256, 4, 4, 1024},
                          Preset{"small", 512, 8, 4, 2048}, Preset{"base", 768, 12, 12, 3072}}) {
    if (p.name != name) continue;
    EncoderConfig c;
    c.vocab_size = 30522;
    c.d_model = p.d_model;
    c.heads = p.heads;
    c.layers = p.layers;
    c.ffn_dim = p.ffn_dim;
    c.type_vocab_size = 2;
    c.position_encoding.kind = PositionEncodingKind::kLearned;
    c.position_encoding.max_positions = 512;
    c.pooling = Pooling::kCls;
    return c;
  }
  return std::nullopt;
}

namespace {

class Filler {
 public:
  Filler(uint32_t seed, std::vector<std::vector<float>>& storage)
      : random_(seed), storage_(storage) {}

  const float* tensor(int64_t size, float scale, float offset = 0.0f) {
    std::normal_distribution<float> normal(0.0f, scale);
    std::vector<float>& values = storage_.emplace_back(static_cast<size_t>(size));
    for (float& value : values) value = offset + normal(random_);
    return values.data();
  }
  LinearWeights linear(int64_t out, int64_t in) {
    LinearWeights linear;
    linear.weight = tensor(out * in, 1.0f / std::sqrt(static_cast<float>(in)));
    linear.bias = tensor(out, 0.1f);
    linear.out_features = out;
    linear.in_features = in;
    return linear;
  }
  NormWeights norm(int64_t d) { return NormWeights{tensor(d, 0.1f, 1.0f), tensor(d, 0.1f)}; }

 private:
  std::mt19937 random_;
  std::vector<std::vector<float>>& storage_;
};

}  // namespace

EncoderWeights random_encoder_weights(const EncoderConfig& c, uint32_t seed) {
  auto storage = std::make_shared<std::vector<std::vector<float>>>();
  Filler fill(seed, *storage);
  EncoderWeights w;
  const int64_t d = c.d_model;
  w.token_embeddings = fill.tensor(c.vocab_size * d, 1.0f);
  const PositionEncodingConfig& pe = c.position_encoding;
  if (has_position_table(pe.kind)) {
    w.position_embeddings = fill.tensor(pe.max_positions * d, 1.0f);
  }
  if (c.type_vocab_size > 0) w.token_type_embeddings = fill.tensor(c.type_vocab_size * d, 1.0f);
  w.embedding_norm = fill.norm(d);
  if (has_relative_bias_table(pe.kind)) {
    w.relative_bias = fill.tensor(pe.relative.num_buckets * c.heads, 1.0f);
  }
  for (int64_t l = 0; l < c.layers; ++l) {
    LayerWeights layer;
    layer.query = fill.linear(d, d);
    layer.key = fill.linear(d, d);
    layer.value = fill.linear(d, d);
    layer.attention_output = fill.linear(d, d);
    layer.attention_norm = fill.norm(d);
    layer.ffn_in = fill.linear(c.ffn_dim, d);
    layer.ffn_out = fill.linear(d, c.ffn_dim);
    layer.ffn_norm = fill.norm(d);
    w.layers.push_back(layer);
  }
  w.final_norm = fill.norm(d);
  w.pooler = fill.linear(d, d);
  if (c.num_labels > 0) w.classifier = fill.linear(c.num_labels, d);
  w.storage = storage;
  return w;
}

}  // namespace tinyenc
