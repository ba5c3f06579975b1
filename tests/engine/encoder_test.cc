// Properties of the whole encoder on random weights: the article's figure 1 (without position
// information, attention is order-blind), batch independence, and input errors. Exactness
// against PyTorch is tested on the golden models (tests/models/encoder_parity_test.cc).
#include "engine/encoder.h"
#include "engine/random_encoder.h"
#include "tests/engine/small_config.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>
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

// Sequences of lengths 7, 3, 3, 9, 1, 3, 7: runs of equal lengths (3, 3), lengths that recur
// out of order (7 ... 7, 3 ... 3) and a one-token sequence.
const std::vector<int32_t> kPackedLengths = {7, 3, 3, 9, 1, 3, 7};

std::vector<int32_t> packed_ids(const std::vector<int32_t>& lengths, uint32_t seed) {
  std::mt19937 random(seed);
  std::uniform_int_distribution<int32_t> id(1, 39);
  std::vector<int32_t> ids;
  for (int32_t length : lengths) {
    for (int32_t t = 0; t < length; ++t) ids.push_back(id(random));
  }
  return ids;
}

EncoderOutput run_packed(Encoder& encoder, const std::vector<int32_t>& ids,
                         const std::vector<int32_t>& lengths,
                         const std::vector<int32_t>& types = {}) {
  EncoderInput input;
  input.batch = static_cast<int64_t>(lengths.size());
  input.ids = ids.data();
  input.lengths = lengths.data();
  input.token_types = types.empty() ? nullptr : types.data();
  input.packed = true;
  return encoder.forward(input);
}

// The packed layout (no padding computed, attention per run of equal lengths) gives every
// sequence the outputs of the padded layout, for every PE kind: positions restart at each
// sequence's start (RoPE rotates by them, ALiBi and T5 bias by their distances), a learned
// table with a padding_idx (RoBERTa) counts from padding_idx + 1, and pooling reads each
// sequence's own rows. Up to rounding, as in OutputsDoNotDependOnTheBatch; a position that ran on
// past a sequence's end, or attention across two sequences, moves them by more than 1e-2.
TEST(Encoder, PackedBatchesGiveThePaddedOutputs) {
  for (PositionEncodingKind kind :
       {PositionEncodingKind::kNone, PositionEncodingKind::kSinusoidal,
        PositionEncodingKind::kLearned, PositionEncodingKind::kRope, PositionEncodingKind::kAlibi,
        PositionEncodingKind::kRelative}) {
    for (int variant = 0; variant < 3; ++variant) {
      EncoderConfig c = small_config(kind);
      c.norm_first = variant == 1;
      c.final_layer_norm = variant == 1;
      c.pooling = variant == 2 ? Pooling::kPooler : (variant == 1 ? Pooling::kCls : Pooling::kMean);
      c.has_pooler = variant == 2;
      c.type_vocab_size = 2;
      c.position_encoding.padding_idx = kind == PositionEncodingKind::kLearned ? 1 : -1;
      RandomWeights random(17);
      const EncoderWeights weights = random.make(c);
      Encoder encoder(c, weights);
      const std::string what =
          std::string(position_encoding_name(kind)) + " variant " + std::to_string(variant);

      const std::vector<int32_t>& lengths = kPackedLengths;
      const std::vector<int32_t> ids = packed_ids(lengths, 23);
      std::vector<int32_t> types(ids.size());
      for (size_t i = 0; i < types.size(); ++i) types[i] = static_cast<int32_t>(i % 3 == 0);
      const EncoderOutput packed = run_packed(encoder, ids, lengths, types);

      const int64_t batch = static_cast<int64_t>(lengths.size()), seq = 9, d = c.d_model;
      std::vector<int32_t> padded_ids(static_cast<size_t>(batch * seq), 0);
      std::vector<int32_t> padded_types(padded_ids.size(), 0);
      int64_t row = 0;
      for (int64_t b = 0; b < batch; ++b) {
        for (int64_t t = 0; t < lengths[static_cast<size_t>(b)]; ++t, ++row) {
          padded_ids[static_cast<size_t>(b * seq + t)] = ids[static_cast<size_t>(row)];
          padded_types[static_cast<size_t>(b * seq + t)] = types[static_cast<size_t>(row)];
        }
      }
      EncoderInput input;
      input.batch = batch;
      input.seq = seq;
      input.ids = padded_ids.data();
      input.lengths = lengths.data();
      input.token_types = padded_types.data();
      const EncoderOutput padded = encoder.forward(input);

      ASSERT_EQ(packed.batch, batch) << what;
      ASSERT_EQ(packed.seq, seq) << what;
      ASSERT_EQ(packed.last_hidden.size(), static_cast<size_t>(row * d)) << what;
      ASSERT_EQ(packed.starts, (std::vector<int64_t>{0, 7, 10, 13, 22, 23, 26})) << what;
      const OutputBounds bounds = rounding_bounds(c, weights, padded);
      for (int64_t b = 0; b < batch; ++b) {
        const int64_t length = lengths[static_cast<size_t>(b)];
        EXPECT_LE(max_abs_difference(packed.last_hidden.data() + packed.starts[b] * d,
                                     padded.last_hidden.data() + b * seq * d, length * d),
                  bounds.hidden)
            << what << " sequence " << b;
        EXPECT_LE(max_abs_difference(packed.pooled.data() + b * d, padded.pooled.data() + b * d, d),
                  std::max(bounds.hidden, bounds.logits))
            << what << " sequence " << b;
        EXPECT_LE(max_abs_difference(packed.logits.data() + b * 3, padded.logits.data() + b * 3, 3),
                  bounds.logits)
            << what << " sequence " << b;
      }
      // And each sequence as it comes out alone: the 1e-5, in absolute terms.
      const int64_t b = 3;  // the longest, in the middle of the batch
      const std::vector<int32_t> alone(ids.begin() + packed.starts[b],
                                       ids.begin() + packed.starts[b] + 9);
      const std::vector<int32_t> alone_types(types.begin() + packed.starts[b],
                                             types.begin() + packed.starts[b] + 9);
      const EncoderOutput single = run_packed(encoder, alone, {9}, alone_types);
      EXPECT_LE(max_abs_difference(single.last_hidden.data(),
                                   packed.last_hidden.data() + packed.starts[b] * d, 9 * d),
                1e-5)
          << what;
      EXPECT_LE(max_abs_difference(single.logits.data(), packed.logits.data() + b * 3, 3), 1e-5)
          << what;
    }
  }
}

TEST(Encoder, PackedBatchesRejectBadInput) {
  EncoderConfig c = small_config(PositionEncodingKind::kLearned);
  RandomWeights random(5);
  Encoder encoder(c, random.make(c));
  EXPECT_THROW(run_packed(encoder, {1, 2, 3}, {2, 0, 1}), std::out_of_range);  // empty sequence
  EXPECT_THROW(run_packed(encoder, std::vector<int32_t>(33, 1), {33}), std::out_of_range);
  EXPECT_THROW(run_packed(encoder, {1, 2, 40}, {3}), std::out_of_range);  // id == vocab_size
  const std::vector<int32_t> ids = {1, 2, 3};
  EncoderInput input;
  input.batch = 1;
  input.ids = ids.data();
  input.packed = true;
  EXPECT_THROW(encoder.forward(input), std::invalid_argument);  // no lengths
  const std::vector<int32_t> lengths = {3};
  input.lengths = lengths.data();
  ForwardOptions keep_attention;
  keep_attention.attention_probabilities = true;
  EXPECT_THROW(encoder.forward(input, keep_attention), std::invalid_argument);
  EXPECT_NO_THROW(encoder.forward(input));
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
