// Properties of the whole encoder on random weights: the article's figure 1 (without position
// information, attention is order-blind), batch independence, and input errors. Exactness
// against PyTorch is tested on the golden models (tests/models/encoder_parity_test.cc).
#include "engine/encoder.h"
#include "engine/random_encoder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "tests/support/float_tolerance.h"

namespace tinyenc {
namespace {

// Weights for `config` from a fixed seed.
class RandomWeights {
 public:
  explicit RandomWeights(uint32_t seed) : seed_(seed) {}
  EncoderWeights make(const EncoderConfig& config) { return random_encoder_weights(config, seed_); }

 private:
  uint32_t seed_;
};

EncoderConfig small_config(PositionEncodingKind kind) {
  EncoderConfig c;
  c.vocab_size = 40;
  c.d_model = 32;
  c.heads = 4;
  c.layers = 2;
  c.ffn_dim = 64;
  c.position_encoding.kind = kind;
  c.position_encoding.max_positions = 32;
  c.position_encoding.relative = {8, 16};
  c.pooling = Pooling::kMean;
  c.num_labels = 3;
  return c;
}

EncoderOutput run(Encoder& encoder, const std::vector<int32_t>& ids, int64_t batch,
                  const std::vector<int32_t>& lengths = {}) {
  EncoderInput input;
  input.batch = batch;
  input.seq = static_cast<int64_t>(ids.size()) / batch;
  input.ids = ids.data();
  input.lengths = lengths.empty() ? nullptr : lengths.data();
  return encoder.forward(input);
}

double max_abs_difference(const float* a, const float* b, int64_t n) {
  double worst = 0.0;
  for (int64_t i = 0; i < n; ++i) worst = std::max(worst, double(std::abs(a[i] - b[i])));
  return worst;
}

// How far two runs of one encoder may differ in their outputs when they round differently
// (tests/support/float_tolerance.h): hidden states and the mean pooled from them at the largest
// hidden value, logits at the largest sum the classifier adds up from inputs that large.
struct OutputBounds {
  double hidden = 0.0;
  double logits = 0.0;
};

OutputBounds rounding_bounds(const EncoderConfig& c, const EncoderWeights& weights,
                             const EncoderOutput& output) {
  const double hidden = testing::largest_magnitude(output.last_hidden.data(),
                                                   static_cast<int64_t>(output.last_hidden.size()));
  const double head =
      testing::linear_sum_magnitude(weights.classifier.weight, c.num_labels, c.d_model, hidden);
  return {testing::encoder_rounding_bound(hidden, c.layers),
          testing::encoder_rounding_bound(head, c.layers)};
}

// 我打你 vs 你打我: the same tokens in another order.
const std::vector<int32_t> kSentence = {5, 17, 9, 23, 2, 31};
const std::vector<int32_t> kPermutation = {2, 0, 5, 1, 4, 3};  // new position -> old position

std::vector<int32_t> permuted(const std::vector<int32_t>& ids) {
  std::vector<int32_t> out(ids.size());
  for (size_t t = 0; t < ids.size(); ++t) out[t] = ids[static_cast<size_t>(kPermutation[t])];
  return out;
}

// Without position information each token's outputs are the same wherever it stands, but not
// bit for bit: the softmax denominators, the contexts and the mean add the tokens up in another
// order, and oneDNN may put the moved rows in other tiles of its kernels. So they agree within
// the rounding bounds (4.3e-6 for the hidden states here: two layers, values below 4; Sapphire
// Rapids showed 1.2e-6), where any position information that leaked in would move them by more
// than 1e-3 (EveryPositionEncodingSeesTheOrder).
TEST(Encoder, WithoutPositionEncodingAttentionIsOrderBlind) {
  for (bool norm_first : {false, true}) {
    EncoderConfig c = small_config(PositionEncodingKind::kNone);
    c.norm_first = norm_first;
    c.final_layer_norm = norm_first;
    RandomWeights random(7);
    const EncoderWeights weights = random.make(c);
    Encoder encoder(c, weights);
    const EncoderOutput original = run(encoder, kSentence, 1);
    const EncoderOutput swapped = run(encoder, permuted(kSentence), 1);
    const OutputBounds bounds = rounding_bounds(c, weights, original);
    const int64_t d = c.d_model;
    for (size_t t = 0; t < kSentence.size(); ++t) {
      const float* moved = swapped.last_hidden.data() + t * d;
      const float* source = original.last_hidden.data() + kPermutation[t] * d;
      EXPECT_LE(max_abs_difference(moved, source, d), bounds.hidden) << "token " << t;
    }
    EXPECT_LE(max_abs_difference(original.pooled.data(), swapped.pooled.data(), d), bounds.hidden);
    EXPECT_LE(max_abs_difference(original.logits.data(), swapped.logits.data(), 3), bounds.logits);
  }
}

TEST(Encoder, EveryPositionEncodingSeesTheOrder) {
  for (PositionEncodingKind kind :
       {PositionEncodingKind::kSinusoidal, PositionEncodingKind::kLearned,
        PositionEncodingKind::kRope, PositionEncodingKind::kAlibi,
        PositionEncodingKind::kRelative}) {
    EncoderConfig c = small_config(kind);
    RandomWeights random(11);
    Encoder encoder(c, random.make(c));
    const EncoderOutput original = run(encoder, kSentence, 1);
    const EncoderOutput swapped = run(encoder, permuted(kSentence), 1);
    // Far above the rounding bounds (< 1e-5): the order moved the outputs, rounding cannot.
    EXPECT_GT(max_abs_difference(original.pooled.data(), swapped.pooled.data(), c.d_model), 1e-3)
        << position_encoding_name(kind);
  }
}

// A sequence's outputs do not depend on what else is in its batch: up to rounding, since a
// longer, padded batch runs other kernel shapes and sums each softmax row over more (masked)
// keys. Padding that leaked into attention would move them by far more than the bounds.
TEST(Encoder, OutputsDoNotDependOnTheBatch) {
  for (PositionEncodingKind kind :
       {PositionEncodingKind::kNone, PositionEncodingKind::kLearned, PositionEncodingKind::kRope,
        PositionEncodingKind::kAlibi, PositionEncodingKind::kRelative}) {
    for (bool norm_first : {false, true}) {
      EncoderConfig c = small_config(kind);
      c.norm_first = norm_first;
      c.final_layer_norm = norm_first;
      c.position_encoding.padding_idx = kind == PositionEncodingKind::kLearned ? 1 : -1;
      RandomWeights random(3);
      const EncoderWeights weights = random.make(c);
      Encoder encoder(c, weights);
      const std::vector<int32_t> alone = {5, 17, 9, 23};
      const EncoderOutput single = run(encoder, alone, 1);
      const OutputBounds bounds = rounding_bounds(c, weights, single);
      // Batch of three padded to 9: a longer sequence, ours (padded with id 0), a short one.
      std::vector<int32_t> batch = {1, 2, 3, 4, 5,  6,  7, 8, 9, 5, 17, 9, 23, 0,
                                    0, 0, 0, 0, 12, 13, 0, 0, 0, 0, 0,  0, 0};
      const EncoderOutput batched = run(encoder, batch, 3, {9, 4, 2});
      const int64_t d = c.d_model;
      EXPECT_LE(
          max_abs_difference(single.last_hidden.data(), batched.last_hidden.data() + 9 * d, 4 * d),
          bounds.hidden)
          << position_encoding_name(kind) << (norm_first ? " pre-LN" : " post-LN");
      EXPECT_LE(max_abs_difference(single.pooled.data(), batched.pooled.data() + d, d),
                bounds.hidden);
      EXPECT_LE(max_abs_difference(single.logits.data(), batched.logits.data() + 3, 3),
                bounds.logits);
    }
  }
}

TEST(Encoder, ProbabilitiesAreTheSoftmaxOfTheLogits) {
  EncoderConfig c = small_config(PositionEncodingKind::kSinusoidal);
  RandomWeights random(5);
  Encoder encoder(c, random.make(c));
  const EncoderOutput out = run(encoder, kSentence, 1);
  double sum = 0.0;
  for (int i = 0; i < 3; ++i) sum += std::exp(double(out.logits[i]));
  // The engine takes the softmax in double from the float logits. Float rounds each logit - max
  // (2^-24 of a gap g, which moves its term p by p * g * 2^-24 <= 2^-24 / e: at most 3 / e units
  // of 2^-24 through the numerator and the sum) and the probability itself (2^-24 of p <= 1):
  // below 4 * 2^-24 = 2.4e-7, where a wrong normalisation or a left-out logit is off by > 1e-3.
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(out.probabilities[i], std::exp(double(out.logits[i])) / sum,
                4 * testing::kFloatRoundoff);
  }
}

TEST(Encoder, RejectsBadInput) {
  EncoderConfig c = small_config(PositionEncodingKind::kLearned);
  RandomWeights random(5);
  Encoder encoder(c, random.make(c));
  EXPECT_THROW(run(encoder, {1, 2, 40}, 1), std::out_of_range);  // id == vocab_size
  EXPECT_THROW(run(encoder, {1, -1}, 1), std::out_of_range);     // negative id
  EXPECT_THROW(run(encoder, std::vector<int32_t>(33, 1), 1), std::out_of_range);  // > 32 positions
  EXPECT_THROW(run(encoder, {1, 2, 3, 4}, 2, {3, 2}), std::out_of_range);         // length > seq
  EXPECT_THROW(run(encoder, {1, 2, 3, 4}, 2, {0, 2}), std::out_of_range);         // empty sequence
}

TEST(Encoder, RejectsInconsistentConfigAndWeights) {
  EncoderConfig c = small_config(PositionEncodingKind::kRope);
  c.heads = 5;  // 32 % 5 != 0
  RandomWeights random(5);
  EXPECT_THROW(Encoder(c, random.make(small_config(PositionEncodingKind::kRope))),
               std::invalid_argument);
  EncoderConfig wide = small_config(PositionEncodingKind::kNone);
  EncoderWeights weights = random.make(wide);
  wide.ffn_dim = 65;  // weights say 64
  EXPECT_THROW(Encoder(wide, weights), std::invalid_argument);
}

}  // namespace
}  // namespace tinyenc
