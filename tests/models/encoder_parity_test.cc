// The golden encoders of tools/golden/encoder_goldens.py, loaded by load_model and run by the
// engine, against PyTorch's outputs: the proof that every weight lands in its engine slot (a
// swapped query/key, gamma/beta or pre-LN norm would not come within tolerance).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "engine/encoder.h"
#include "models/model.h"
#include "tests/support/test_data.h"

namespace tinyenc {
namespace {

// float32 sums in another order than PyTorch's: differences of about 1e-6 are seen (x86-64,
// AVX-512); the margin covers other ISAs.
constexpr double kTolerance = 2e-5;

class EncoderParityTest : public ::testing::TestWithParam<std::string> {};

TEST_P(EncoderParityTest, MatchesPyTorch) {
  const std::filesystem::path dir = testing::source_dir() / "tests/golden/encoders" / GetParam();
  // Committed with the source: a missing golden is a broken checkout, not a skip.
  ASSERT_TRUE(std::filesystem::exists(dir / "golden.json"))
      << "missing committed " << dir / "golden.json";
  LoadedModel model = load_model(dir);
  ASSERT_TRUE(model.unused_tensors.empty());
  Encoder encoder(model.config.encoder, model.weights);
  const int64_t d = model.config.encoder.d_model;
  const nlohmann::json golden = testing::read_json(dir / "golden.json");
  double worst = 0.0;
  for (const nlohmann::json& sample : golden.at("cases")) {
    const std::vector<std::vector<int32_t>> ids = sample.at("ids");
    const std::vector<int32_t> lengths = sample.at("lengths");
    const int64_t batch = static_cast<int64_t>(ids.size());
    const int64_t seq = static_cast<int64_t>(ids[0].size());
    std::vector<int32_t> flat_ids, flat_types;
    for (const auto& row : ids) flat_ids.insert(flat_ids.end(), row.begin(), row.end());
    if (!sample.at("token_types").is_null()) {
      for (const auto& row : sample.at("token_types")) {
        for (const auto& type : row) flat_types.push_back(type.get<int32_t>());
      }
    }
    EncoderInput input;
    input.batch = batch;
    input.seq = seq;
    input.ids = flat_ids.data();
    input.lengths = lengths.data();
    input.token_types = flat_types.empty() ? nullptr : flat_types.data();
    const EncoderOutput output = encoder.forward(input);

    const auto compare = [&](double actual, double expected, const std::string& what) {
      const double difference = std::abs(actual - expected);
      worst = std::max(worst, difference);
      ASSERT_LE(difference, kTolerance) << what;
    };
    for (int64_t b = 0; b < batch; ++b) {
      const auto& hidden = sample.at("last_hidden")[b];
      for (int64_t t = 0; t < lengths[b]; ++t) {
        for (int64_t i = 0; i < d; ++i) {
          compare(output.last_hidden[(b * seq + t) * d + i], hidden[t][i].get<double>(),
                  "last_hidden[" + std::to_string(b) + "][" + std::to_string(t) + "]");
        }
      }
      // Every golden has pooled outputs and logits: the engine must produce both, in full.
      ASSERT_EQ(output.pooled.size(), static_cast<size_t>(batch * d)) << "pooled";
      for (int64_t i = 0; i < d; ++i) {
        compare(output.pooled[b * d + i], sample.at("pooled")[b][i].get<double>(), "pooled");
      }
      const int64_t labels = model.config.encoder.num_labels;
      ASSERT_GT(labels, 0) << "the golden config has no labels";
      ASSERT_EQ(static_cast<int64_t>(sample.at("logits")[b].size()), labels) << "logits";
      ASSERT_EQ(output.logits.size(), static_cast<size_t>(batch * labels)) << "logits";
      for (int64_t i = 0; i < labels; ++i) {
        compare(output.logits[b * labels + i], sample.at("logits")[b][i].get<double>(), "logits");
      }
    }
  }
  std::ostringstream worst_text;
  worst_text << worst;
  RecordProperty("max_abs_difference", worst_text.str());
}

INSTANTIATE_TEST_SUITE_P(Golden, EncoderParityTest,
                         ::testing::Values("bert_post_ln", "pre_ln_sinusoidal", "none",
                                           "sinusoidal_concat", "learned_roberta", "rope_half",
                                           "rope_interleaved", "rope_partial", "alibi",
                                           "alibi_6_heads", "relative"));

}  // namespace
}  // namespace tinyenc
