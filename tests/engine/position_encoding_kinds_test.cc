// The position-encoding kinds through their registry: names, the one validation the engine and
// models/ share, and the hooks a kind has or leaves alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/encoder_config.h"
#include "engine/encoder_weights.h"
#include "engine/pe/registry.h"

namespace tinyenc {
namespace {

EncoderConfig config_of(PositionEncodingKind kind, int64_t d_model = 32, int64_t heads = 4) {
  EncoderConfig c;
  c.vocab_size = 10;
  c.d_model = d_model;
  c.heads = heads;
  c.layers = 1;
  c.ffn_dim = 64;
  c.position_encoding.kind = kind;
  return c;
}

// The field and message validate() throws, or "" when the config is accepted.
std::string rejection(const EncoderConfig& config, const FieldNames& names = {}) {
  try {
    validate_position_encoding(config, names);
  } catch (const InvalidField& e) {
    return e.field + ": " + e.message;
  }
  return "";
}

TEST(PositionEncodingKinds, EveryKindIsRegisteredUnderItsName) {
  for (const char* name :
       {"none", "sinusoidal", "learned", "rope", "alibi", "relative", "learned_relative"}) {
    const std::optional<PositionEncodingKind> kind = parse_position_encoding(name);
    ASSERT_TRUE(kind.has_value()) << name;
    EXPECT_EQ(position_encoding_type(*kind).name, name);
    EXPECT_EQ(position_encoding_name(*kind), name);
  }
  EXPECT_FALSE(parse_position_encoding("spiral").has_value());
}

TEST(PositionEncodingKinds, ValidationNamesTheFieldAsTheConfigSpellsIt) {
  EncoderConfig rope = config_of(PositionEncodingKind::kRope, 20, 4);  // head_dim 5
  EXPECT_EQ(rejection(rope, {.d_model = "dim", .heads = "n_heads"}),
            "dim: head_dim 20 / 4 = 5 is odd, but RoPE rotates pairs of dimensions");
  rope.position_encoding.rope.rotary_dim = 4;  // a partial rotation of an even width is fine
  EXPECT_EQ(rejection(rope), "");
  rope.position_encoding.rope.rotary_dim = 6;
  EXPECT_EQ(rejection(rope),
            "position_encoding.rotary_dim: 6 exceeds head_dim 5 (hidden_size / "
            "num_attention_heads)");

  EXPECT_EQ(rejection(config_of(PositionEncodingKind::kSinusoidal, 33, 1)),
            "hidden_size: 33 is odd, but the sinusoidal table pairs sin and cos dimensions");

  EncoderConfig learned = config_of(PositionEncodingKind::kLearned);
  learned.position_encoding.max_positions = 2;
  learned.position_encoding.padding_idx = 1;
  EXPECT_EQ(rejection(learned),
            "position_encoding.padding_idx: leaves no rows of the 2-row table for positions");
  EXPECT_EQ(rejection(learned, {.position_encoding = ""}),
            "padding_idx: leaves no rows of the 2-row table for positions");
}

TEST(PositionEncodingKinds, WithoutAShapeOnlyTheKindsParametersAreChecked) {
  EncoderConfig parameters_only;
  parameters_only.position_encoding.kind = PositionEncodingKind::kSinusoidal;
  EXPECT_EQ(rejection(parameters_only), "");  // d_model 0 is not known yet, not odd
  parameters_only.position_encoding.kind = PositionEncodingKind::kRope;
  parameters_only.position_encoding.rope.rotary_dim = 7;
  EXPECT_EQ(rejection(parameters_only), "position_encoding.rotary_dim: must be even");
}

TEST(PositionEncodingKinds, LearnedRefusesInputsLongerThanItsTableAfterTheOffset) {
  EncoderConfig c = config_of(PositionEncodingKind::kLearned);
  c.position_encoding.max_positions = 8;
  c.position_encoding.padding_idx = 1;  // RoBERTa: rows 0 and 1 never hold a real token
  const std::vector<float> table(static_cast<size_t>(8 * c.d_model), 0.5f);
  EncoderWeights weights;
  weights.position_embeddings = table.data();
  std::unique_ptr<PositionEncoding> learned = make_position_encoding(c, weights);
  EXPECT_NO_THROW(learned->prepare(6));
  EXPECT_THROW(learned->prepare(7), std::out_of_range);
  EXPECT_EQ(learned->embedding_rows().table, table.data());
  EXPECT_EQ(learned->embedding_rows().rows, 8);
  EXPECT_EQ(learned->parameter_count(), 8 * c.d_model);
  EXPECT_THROW(make_position_encoding(c, EncoderWeights{}), std::invalid_argument);
}

TEST(PositionEncodingKinds, KindsWithoutAHookLeaveTheScoresAlone) {
  const EncoderConfig none = config_of(PositionEncodingKind::kNone);
  std::unique_ptr<PositionEncoding> encoding = make_position_encoding(none, EncoderWeights{});
  encoding->prepare(3);
  std::vector<float> scores(static_cast<size_t>(4 * 3 * 3), 1.0f);
  encoding->add_score_bias(scores.data(), 1, 3);
  EXPECT_EQ(scores, std::vector<float>(scores.size(), 1.0f));
  EXPECT_EQ(encoding->embedding_rows().table, nullptr);
  EXPECT_EQ(encoding->parameter_count(), 0);
}

// adds_score_bias() says whether add_score_bias() adds anything (attention skips the hook, and
// stores no scores, where it says no), and agrees with what the kind's type says of itself.
TEST(PositionEncodingKinds, EachKindSaysWhetherItBiasesTheScores) {
  for (const PositionEncodingType* type : position_encoding_types()) {
    EncoderConfig c = config_of(type->kind);
    c.position_encoding.max_positions = 16;
    const std::vector<float> positions(static_cast<size_t>(16 * c.d_model), 0.5f);
    const std::vector<float> buckets(static_cast<size_t>(64 * c.heads), 0.25f);
    EncoderWeights weights;
    weights.position_embeddings = positions.data();
    weights.relative_bias = buckets.data();
    std::unique_ptr<PositionEncoding> encoding = make_position_encoding(c, weights);
    encoding->prepare(5);
    std::vector<float> scores(static_cast<size_t>(c.heads * 5 * 5), 0.0f);
    encoding->add_score_bias(scores.data(), 1, 5);
    const bool added = std::any_of(scores.begin(), scores.end(), [](float v) { return v != 0; });
    EXPECT_EQ(encoding->adds_score_bias(), added) << type->name;
    EXPECT_EQ(type->biases_attention, added) << type->name;
  }
}

TEST(PositionEncodingKinds, AlibiAddsMinusSlopeTimesDistance) {
  const EncoderConfig c = config_of(PositionEncodingKind::kAlibi, 8, 2);
  std::unique_ptr<PositionEncoding> alibi = make_position_encoding(c, EncoderWeights{});
  alibi->prepare(3);
  std::vector<float> scores(static_cast<size_t>(2 * 3 * 3), 0.0f);
  alibi->add_score_bias(scores.data(), 1, 3);
  // Two heads: slopes 2^-4 and 2^-8 (Press et al.); row 0 of head 0 is -m |j - 0|.
  EXPECT_FLOAT_EQ(scores[0], 0.0f);
  EXPECT_FLOAT_EQ(scores[1], -0.0625f);
  EXPECT_FLOAT_EQ(scores[2], -0.125f);
  EXPECT_FLOAT_EQ(scores[9 + 2], -2.0f / 256.0f);
}

// transformers' MPNetAttention.relative_position_bucket, transcribed: n = -(j - i), the upper
// half of the buckets for n < 0, exact below num_buckets/4, log-spaced up to max_distance.
int64_t mpnet_bucket(int64_t relative_position, int64_t num_buckets, int64_t max_distance) {
  int64_t ret = 0;
  int64_t n = -relative_position;
  num_buckets /= 2;
  if (n < 0) ret += num_buckets;
  n = std::abs(n);
  const int64_t max_exact = num_buckets / 2;
  if (n < max_exact) return ret + n;
  const float scaled = std::log(static_cast<float>(n) / static_cast<float>(max_exact)) /
                       static_cast<float>(std::log(static_cast<double>(max_distance) /
                                                   static_cast<double>(max_exact))) *
                       static_cast<float>(num_buckets - max_exact);
  return ret + std::min(max_exact + static_cast<int64_t>(scaled), num_buckets - 1);
}

TEST(PositionEncodingKinds, LearnedRelativeIsMpnetsTableAndBucketedBias) {
  const int64_t heads = 2;
  const int64_t seq = 300;  // distances past max_distance 128 land in the last buckets
  EncoderConfig c = config_of(PositionEncodingKind::kLearnedRelative, 8, heads);
  c.position_encoding.max_positions = 514;
  c.position_encoding.padding_idx = 1;
  std::vector<float> positions(static_cast<size_t>(514 * 8), 0.5f);
  std::vector<float> bias_table(static_cast<size_t>(32 * heads));
  for (size_t i = 0; i < bias_table.size(); ++i) bias_table[i] = static_cast<float>(i);
  EncoderWeights weights;
  weights.position_embeddings = positions.data();
  weights.relative_bias = bias_table.data();
  std::unique_ptr<PositionEncoding> encoding = make_position_encoding(c, weights);
  encoding->prepare(seq);
  EXPECT_EQ(encoding->embedding_rows().table, positions.data());
  EXPECT_EQ(encoding->embedding_rows().rows, 514);
  EXPECT_EQ(encoding->parameter_count(), 514 * 8 + 32 * heads);
  std::vector<float> scores(static_cast<size_t>(heads * seq * seq), 0.0f);
  encoding->add_score_bias(scores.data(), 1, seq);
  for (int64_t h = 0; h < heads; ++h) {
    for (int64_t i = 0; i < seq; ++i) {
      for (int64_t j = 0; j < seq; ++j) {
        const float expected =
            bias_table[static_cast<size_t>(mpnet_bucket(j - i, 32, 128) * heads + h)];
        ASSERT_EQ(scores[static_cast<size_t>((h * seq + i) * seq + j)], expected)
            << "head " << h << " query " << i << " key " << j;
      }
    }
  }
  // 514 rows less padding_idx + 1: 512 tokens, as RoBERTa's table.
  EXPECT_NO_THROW(encoding->prepare(512));
  EXPECT_THROW(encoding->prepare(513), std::out_of_range);
}

}  // namespace
}  // namespace tinyenc
