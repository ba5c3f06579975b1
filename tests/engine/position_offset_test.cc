// Shift invariance on random models of every PE kind: EncoderInput::position_offset K numbers
// every sequence as if it began K tokens later. Relative kinds depend on i - j only (ALiBi and T5
// bit for bit, RoPE up to the rounding of its angles); absolute kinds (sinusoidal, learned) add
// other rows, which is checked against references built by hand: the sinusoidal formula at
// pos + K, and a learned table with its first K rows cut off.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/encoder.h"
#include "engine/pe/hooks.h"
#include "engine/pe/position_ids.h"
#include "engine/pe/registry.h"
#include "engine/random_encoder.h"
#include "tests/engine/small_config.h"

namespace tinyenc {
namespace {

const std::vector<PositionEncodingKind> kAllKinds = {
    PositionEncodingKind::kNone,
    PositionEncodingKind::kSinusoidal,
    PositionEncodingKind::kLearned,
    PositionEncodingKind::kRope,
    PositionEncodingKind::kAlibi,
    PositionEncodingKind::kRelative,
    PositionEncodingKind::kLearnedRelative,
};

// Two sequences, 6 and 4 tokens: padded to 6, or packed end to end.
const std::vector<int32_t> kLengths = {6, 4};
const std::vector<int32_t> kPaddedIds = {5, 17, 9, 23, 2, 31, 12, 3, 38, 7, 0, 0};
const std::vector<int32_t> kPackedIds = {5, 17, 9, 23, 2, 31, 12, 3, 38, 7};

EncoderOutput run(Encoder& encoder, bool packed, int64_t offset,
                  const ForwardOptions& options = {}) {
  EncoderInput input;
  input.batch = 2;
  input.seq = 6;
  input.ids = packed ? kPackedIds.data() : kPaddedIds.data();
  input.lengths = kLengths.data();
  input.packed = packed;
  input.position_offset = offset;
  return encoder.forward(input, options);
}

// Rows of the real tokens only (padding rows are computed, then ignored).
std::vector<float> real_rows(const EncoderOutput& output, const std::vector<float>& rows) {
  const int64_t d = output.d_model;
  std::vector<float> out;
  for (int64_t b = 0; b < output.batch; ++b) {
    const int64_t start = output.starts.empty() ? b * output.seq : output.starts[b];
    const auto begin = rows.begin() + start * d;
    out.insert(out.end(), begin, begin + kLengths[static_cast<size_t>(b)] * d);
  }
  return out;
}

double max_abs_difference(const std::vector<float>& a, const std::vector<float>& b) {
  EXPECT_EQ(a.size(), b.size());
  double worst = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    worst = std::max(worst, double(std::abs(a[i] - b[i])));
  }
  return worst;
}

bool bit_identical(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(PositionOffset, PositionIdsCountFromTheOffset) {
  std::vector<int32_t> ids(12);
  position_ids(kLengths.data(), 2, 6, /*padding_idx=*/-1, ids.data(), 10);
  EXPECT_EQ(ids, (std::vector<int32_t>{10, 11, 12, 13, 14, 15, 10, 11, 12, 13, 14, 15}));
  // RoBERTa: real tokens from padding_idx + 1 + K, padding keeps padding_idx.
  position_ids(kLengths.data(), 2, 6, /*padding_idx=*/1, ids.data(), 10);
  EXPECT_EQ(ids, (std::vector<int32_t>{12, 13, 14, 15, 16, 17, 12, 13, 14, 15, 1, 1}));
  std::vector<int32_t> packed(10);
  packed_position_ids(kLengths.data(), 2, /*padding_idx=*/-1, packed.data(), 3);
  EXPECT_EQ(packed, (std::vector<int32_t>{3, 4, 5, 6, 7, 8, 3, 4, 5, 6}));
  packed_position_ids(kLengths.data(), 2, /*padding_idx=*/1, packed.data(), 3);
  EXPECT_EQ(packed, (std::vector<int32_t>{5, 6, 7, 8, 9, 10, 5, 6, 7, 8}));
}

// The test covers every kind the registry knows: a new kind must say how it shifts.
TEST(PositionOffset, EveryRegisteredKindIsCovered) {
  for (const PositionEncodingType* type : position_encoding_types()) {
    EXPECT_NE(std::find(kAllKinds.begin(), kAllKinds.end(), type->kind), kAllKinds.end())
        << type->name;
  }
}

// none, alibi and relative never read a position id: bit for bit the same outputs at any K,
// padded and packed. RoPE rotates q_m and k_n by (m + K) and (n + K), so q.k depends on m - n
// only; its outputs move by the rounding of the float32 angles (pos * inv_freq) alone, far below
// 1e-5 for K < 100. Sinusoidal and learned (learned_relative too) add other rows: the outputs
// move by orders of magnitude more.
TEST(PositionOffset, RelativeKindsAreShiftInvariantAndAbsoluteKindsAreNot) {
  for (PositionEncodingKind kind : kAllKinds) {
    for (bool packed : {false, true}) {
      EncoderConfig c = small_config(kind);
      const EncoderWeights weights = random_encoder_weights(c, 29);
      Encoder encoder(c, weights);
      const EncoderOutput base = run(encoder, packed, 0);
      for (int64_t offset : {1, 7, 20}) {
        const std::string what = std::string(position_encoding_name(kind)) +
                                 (packed ? " packed" : " padded") + " K=" + std::to_string(offset);
        const EncoderOutput shifted = run(encoder, packed, offset);
        const std::vector<float> base_hidden = real_rows(base, base.last_hidden);
        const std::vector<float> shifted_hidden = real_rows(shifted, shifted.last_hidden);
        switch (kind) {
          case PositionEncodingKind::kNone:
          case PositionEncodingKind::kAlibi:
          case PositionEncodingKind::kRelative:
            EXPECT_TRUE(bit_identical(base_hidden, shifted_hidden)) << what;
            EXPECT_TRUE(bit_identical(base.pooled, shifted.pooled)) << what;
            EXPECT_TRUE(bit_identical(base.logits, shifted.logits)) << what;
            break;
          case PositionEncodingKind::kRope:
            // The offset does reach the rotation: other angles round otherwise, so some bits
            // differ (an offset that was dropped would leave them all alike).
            EXPECT_FALSE(bit_identical(base_hidden, shifted_hidden)) << what;
            EXPECT_LE(max_abs_difference(base_hidden, shifted_hidden), 1e-5) << what;
            EXPECT_LE(max_abs_difference(base.pooled, shifted.pooled), 1e-5) << what;
            EXPECT_LE(max_abs_difference(base.logits, shifted.logits), 1e-5) << what;
            break;
          case PositionEncodingKind::kSinusoidal:
          case PositionEncodingKind::kLearned:
          case PositionEncodingKind::kLearnedRelative:  // its learned table moves
            EXPECT_GT(max_abs_difference(base.pooled, shifted.pooled), 1e-3) << what;
            break;
        }
      }
    }
  }
}

// RoPE's own hooks, outside the encoder: prepared for seq + K positions, they rotate q and k by
// pos + K as the formula does (rotate_half pairing, computed here in double), and every score
// q_m . k_n equals the unshifted one up to float rounding (Su et al.: it depends on m - n only).
TEST(PositionOffset, RopeRotatesByPosPlusKAndKeepsTheScores) {
  EncoderConfig c = small_config(PositionEncodingKind::kRope);
  const int64_t heads = c.heads, head_dim = c.head_dim(), d = c.d_model, seq = 6, offset = 50;
  std::unique_ptr<PositionEncoding> rope = make_position_encoding(c, EncoderWeights{});
  std::mt19937 random(3);
  std::normal_distribution<float> normal;
  std::vector<float> q(static_cast<size_t>(seq * d)), k(q.size());
  for (float& value : q) value = normal(random);
  for (float& value : k) value = normal(random);
  const auto rotated = [&](std::vector<float>& rows, std::vector<float>& other, int64_t shift) {
    const std::vector<int32_t> length = {static_cast<int32_t>(seq)};
    std::vector<int32_t> ids(static_cast<size_t>(seq));
    position_ids(length.data(), 1, seq, -1, ids.data(), shift);
    rope->prepare(seq, shift);
    rope->rotate_queries_keys({rows.data(), other.data(), d, seq, ids.data()});
  };
  std::vector<float> q0 = q, k0 = k, qk = q, kk = k;
  rotated(q0, k0, 0);
  rotated(qk, kk, offset);
  double worst_rotation = 0, worst_score = 0;
  for (int64_t t = 0; t < seq; ++t) {
    for (int64_t h = 0; h < heads; ++h) {
      for (int64_t i = 0; i < head_dim / 2; ++i) {
        const double frequency = 1.0 / std::pow(10000.0, double(2 * i) / double(head_dim));
        const double angle = double(t + offset) * frequency;
        const size_t first = static_cast<size_t>(t * d + h * head_dim + i);
        const size_t second = first + static_cast<size_t>(head_dim / 2);
        const double x1 = q[first], x2 = q[second];
        worst_rotation = std::max(
            worst_rotation, std::abs(qk[first] - (x1 * std::cos(angle) - x2 * std::sin(angle))));
        worst_rotation = std::max(
            worst_rotation, std::abs(qk[second] - (x2 * std::cos(angle) + x1 * std::sin(angle))));
      }
    }
  }
  for (int64_t h = 0; h < heads; ++h) {
    for (int64_t m = 0; m < seq; ++m) {
      for (int64_t n = 0; n < seq; ++n) {
        double score0 = 0, score_k = 0;
        for (int64_t i = 0; i < head_dim; ++i) {
          const size_t a = static_cast<size_t>(m * d + h * head_dim + i);
          const size_t b = static_cast<size_t>(n * d + h * head_dim + i);
          score0 += double(q0[a]) * k0[b];
          score_k += double(qk[a]) * kk[b];
        }
        worst_score = std::max(worst_score, std::abs(score0 - score_k));
      }
    }
  }
  // float32 angles at positions near 56: one ulp is 4e-6 radians, on values of about 3.
  EXPECT_LE(worst_rotation, 1e-4);
  EXPECT_LE(worst_score, 1e-4);
  // And the rotation did move: q at K differs from q at 0 by far more than rounding.
  double moved = 0;
  for (size_t i = 0; i < q.size(); ++i) moved = std::max(moved, double(std::abs(qk[i] - q0[i])));
  EXPECT_GT(moved, 0.1);
}

// The layer-0 hidden state (what enters layer 1) of a sinusoidal model without the embedding
// LayerNorm is token row + PE(pos + K), PE computed here from the formula (seed module, float32
// angle: float(pos) * float(exp(2i * -ln(10000) / d))).
TEST(PositionOffset, SinusoidalAddsTheFormulaAtPosPlusK) {
  EncoderConfig c = small_config(PositionEncodingKind::kSinusoidal);
  c.embedding_layer_norm = false;
  const EncoderWeights weights = random_encoder_weights(c, 31);
  Encoder encoder(c, weights);
  ForwardOptions options;
  options.layer_hidden_states = true;
  const int64_t offset = 1000, d = c.d_model;
  for (bool packed : {false, true}) {
    const EncoderOutput output = run(encoder, packed, offset, options);
    const std::vector<float> layer0 = real_rows(output, output.layer_hidden[0]);
    double worst = 0;
    size_t row = 0;
    for (size_t b = 0; b < kLengths.size(); ++b) {
      for (int32_t t = 0; t < kLengths[b]; ++t, ++row) {
        const int32_t id = kPaddedIds[b * 6 + static_cast<size_t>(t)];
        const float position = static_cast<float>(t + offset);
        for (int64_t i = 0; i < d / 2; ++i) {
          const float frequency = std::exp(static_cast<float>(2 * i) *
                                           static_cast<float>(-std::log(10000.0) / double(d)));
          const float angle = position * frequency;
          const float expected_sin = weights.token_embeddings[id * d + 2 * i] + std::sin(angle);
          const float expected_cos = weights.token_embeddings[id * d + 2 * i + 1] + std::cos(angle);
          worst = std::max(worst, double(std::abs(layer0[row * d + 2 * i] - expected_sin)));
          worst = std::max(worst, double(std::abs(layer0[row * d + 2 * i + 1] - expected_cos)));
        }
      }
    }
    // sin/cos of one float angle from libm and from the table agree to an ulp or two.
    EXPECT_LE(worst, 2e-6) << (packed ? "packed" : "padded");
  }
}

// Learned at offset K is the same model, at offset 0, with the table's first K rows removed:
// bit for bit, since the same numbers meet the same kernels. With padding_idx (RoBERTa) the
// shifted rows start after padding_idx + 1, and padding keeps row padding_idx.
TEST(PositionOffset, LearnedReadsTableRowPosPlusK) {
  for (int64_t padding_idx : {int64_t{-1}, int64_t{1}}) {
    EncoderConfig c = small_config(PositionEncodingKind::kLearned);
    c.position_encoding.padding_idx = padding_idx;
    const EncoderWeights weights = random_encoder_weights(c, 37);
    const int64_t offset = 9, d = c.d_model, rows = c.position_encoding.max_positions;
    const int64_t first = padding_idx + 1;  // rows before it stay where they are
    std::vector<float> cut(weights.position_embeddings, weights.position_embeddings + rows * d);
    for (int64_t r = first; r + offset < rows; ++r) {
      std::copy_n(weights.position_embeddings + (r + offset) * d, d, cut.begin() + r * d);
    }
    EncoderWeights cut_weights = weights;
    cut_weights.position_embeddings = cut.data();
    Encoder shifted_encoder(c, weights);
    Encoder cut_encoder(c, cut_weights);
    for (bool packed : {false, true}) {
      const std::string what =
          "padding_idx " + std::to_string(padding_idx) + (packed ? " packed" : " padded");
      const EncoderOutput shifted = run(shifted_encoder, packed, offset);
      const EncoderOutput reference = run(cut_encoder, packed, 0);
      EXPECT_TRUE(bit_identical(real_rows(shifted, shifted.last_hidden),
                                real_rows(reference, reference.last_hidden)))
          << what;
      EXPECT_TRUE(bit_identical(shifted.logits, reference.logits)) << what;
    }
  }
}

std::string refusal(Encoder& encoder, bool packed, int64_t offset) {
  try {
    run(encoder, packed, offset);
  } catch (const std::out_of_range& e) {
    return e.what();
  }
  return "";
}

// A table of 32 rows numbers 6 tokens up to K = 26 (rows 26..31); K = 27 needs row 32. With
// padding_idx 1 the first real row is 2 + K, so K = 24 is the last that fits.
TEST(PositionOffset, LearnedRefusesPositionsPastItsTable) {
  for (int64_t padding_idx : {int64_t{-1}, int64_t{1}}) {
    EncoderConfig c = small_config(PositionEncodingKind::kLearned);
    c.position_encoding.padding_idx = padding_idx;
    Encoder encoder(c, random_encoder_weights(c, 41));
    const int64_t last = 32 - 6 - (padding_idx + 1);
    for (bool packed : {false, true}) {
      EXPECT_EQ(refusal(encoder, packed, last), "");
      const std::string message = refusal(encoder, packed, last + 1);
      const std::string first = std::to_string(padding_idx + 1 + last + 1);
      EXPECT_EQ(message, "input of 6 tokens at position offset " + std::to_string(last + 1) +
                             " needs rows " + first + ".." + std::to_string(32 + 0) +
                             " of the learned position table, which has 32 rows "
                             "(max_position_embeddings)");
    }
  }
  // And the encoder still runs afterwards.
  EncoderConfig c = small_config(PositionEncodingKind::kLearned);
  Encoder encoder(c, random_encoder_weights(c, 41));
  EXPECT_NE(refusal(encoder, false, 100), "");
  EXPECT_EQ(run(encoder, false, 0).logits.size(), 6u);
}

TEST(PositionOffset, RefusesOffsetsOutsideItsRange) {
  EncoderConfig c = small_config(PositionEncodingKind::kRope);
  Encoder encoder(c, random_encoder_weights(c, 43));
  EXPECT_EQ(refusal(encoder, false, -1), "position offset -1 is outside [0, 65536]");
  EXPECT_EQ(refusal(encoder, true, kMaxPositionOffset + 1),
            "position offset 65537 is outside [0, 65536]");
  EXPECT_EQ(refusal(encoder, true, kMaxPositionOffset), "");
}

}  // namespace
}  // namespace tinyenc
