// The accuracy gates of the int8 and bf16 compute dtypes on the shipped "who did it?" models
// (models/pretrained/order-*), loaded as `tinyenc run` loads them and run on their held-out
// goldens (heldout_golden.json: the token ids PyTorch saw and the gold labels) in one padded
// batch, in float32 and in the dtype, from the same float32 weights.
//
// int8: the predicted label is float32's for at least 99.5 % of the sentences, and the accuracy
// against the gold labels is at most 0.5 points below float32's.
// bf16: the same label for at least 99.9 % of them; the pooled output's cosine with float32's at
// least 0.9995 and max |hidden - hidden_f32| over each sentence's tokens at most 3e-2, or, where
// PyTorch rounding what tinyenc rounds (every Linear's input and weight to bf16, float32 sums:
// "bf16_matmuls" in references.json) is farther, 1.5x PyTorch's distance (the spread of
// rounding the int8 gate of dtype_accuracy_test.cc allows): these trained models' hidden states
// are larger than the random goldens', and PyTorch's own bf16_matmuls reaches 1.04e-1 on
// order-alibi, 4.1e-2 on order-relative and 4.0e-2 on order-learned.
//
// Except order-none, the order-blind baseline: it cannot tell a swapped pair apart, so it splits
// its belief between the two people, and many of its 410 sentences have their top two logits
// closer together than any int8 rounding moves them (PyTorch's quantize_dynamic moves a logit by
// up to 0.14 there). Which of those flip is a coin toss between two correct int8 implementations:
// PyTorch keeps float32's label on 398, tinyenc on 396 to 400 depending on the CPU's kernels. So
// for every model the gate is on the logits themselves, per sentence d = max |logit -
// logit_f32|: its mean over the sentences at most 1.5x PyTorch's for the same dtype (the rounding
// spread of dtype_accuracy_test.cc; the mean, because the largest d of 410 moves by more than
// that between two int8 implementations of the same resolution), and no sentence whose float32
// top-two margin exceeds twice 1.5x PyTorch's largest d changes its label. The share-of-labels
// gate stays for the other five.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "engine/dtype.h"
#include "engine/encoder.h"
#include "models/model.h"
#include "tests/models/dtype_gates.h"
#include "tests/support/test_data.h"

namespace tinyenc {
namespace {

const std::vector<std::string> kModels = {"order-none", "order-sinusoidal", "order-learned",
                                          "order-rope", "order-alibi",      "order-relative"};

constexpr double kInt8SameLabels = 0.995;
constexpr double kBF16SameLabels = 0.999;
constexpr double kMaxAccuracyDropPoints = 0.5;
constexpr double kBF16MinCosine = 0.9995;
constexpr double kBF16MaxHidden = 3e-2;
constexpr double kRoundingSpread = 1.5;

struct OrderModel {
  LoadedModel model;
  std::vector<std::vector<int32_t>> rows;
  std::vector<int64_t> gold;
  EncoderOutput f32;
  std::vector<int64_t> f32_labels;
};

EncoderOutput run_batch(Encoder& encoder, const std::vector<std::vector<int32_t>>& rows) {
  size_t seq = 0;
  for (const auto& row : rows) seq = std::max(seq, row.size());
  std::vector<int32_t> ids(rows.size() * seq, 0);
  std::vector<int32_t> lengths;
  for (size_t b = 0; b < rows.size(); ++b) {
    std::copy(rows[b].begin(), rows[b].end(), ids.begin() + static_cast<int64_t>(b * seq));
    lengths.push_back(static_cast<int32_t>(rows[b].size()));
  }
  EncoderInput input{static_cast<int64_t>(rows.size()), static_cast<int64_t>(seq), ids.data(),
                     lengths.data(), nullptr};
  return encoder.forward(input);
}

std::vector<int64_t> labels_of(const EncoderOutput& output, int64_t labels) {
  std::vector<int64_t> result;
  for (int64_t b = 0; b < output.batch; ++b) {
    const float* row = output.logits.data() + b * labels;
    result.push_back(std::max_element(row, row + labels) - row);
  }
  return result;
}

const OrderModel& order_model(const std::string& name) {
  static std::map<std::string, std::unique_ptr<OrderModel>> cache;
  std::unique_ptr<OrderModel>& entry = cache[name];
  if (entry) return *entry;
  auto loaded = std::make_unique<OrderModel>();
  const std::filesystem::path dir = testing::source_dir() / "models" / "pretrained" / name;
  loaded->model = load_model(dir);
  const nlohmann::json golden = testing::read_json(dir / "heldout_golden.json");
  for (const nlohmann::json& sentence : golden.at("sentences")) {
    loaded->rows.push_back(sentence.at("ids").get<std::vector<int32_t>>());
    loaded->gold.push_back(sentence.at("label").get<int64_t>());
  }
  Encoder encoder(loaded->model.config.encoder, loaded->model.weights);
  loaded->f32 = run_batch(encoder, loaded->rows);
  loaded->f32_labels = labels_of(loaded->f32, loaded->model.config.encoder.num_labels);
  entry = std::move(loaded);
  return *entry;
}

int count_equal(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  int equal = 0;
  for (size_t i = 0; i < a.size(); ++i) equal += a[i] == b[i] ? 1 : 0;
  return equal;
}

// The label and accuracy gates; returns the dtype's output for further checks.
EncoderOutput check_labels(const std::string& name, ComputeDtype dtype, double same_share,
                           const std::string& pytorch_variant) {
  const OrderModel& order = order_model(name);
  const EncoderConfig& config = order.model.config.encoder;
  Encoder encoder(testing::with_dtype(config, dtype), order.model.weights);
  EncoderOutput output = run_batch(encoder, order.rows);
  const std::vector<int64_t> labels = labels_of(output, config.num_labels);
  const int sentences = static_cast<int>(order.rows.size());
  const int same = count_equal(labels, order.f32_labels);
  const int correct = count_equal(labels, order.gold);
  const int correct_f32 = count_equal(order.f32_labels, order.gold);
  const nlohmann::json& pytorch =
      testing::dtype_references().at("order_models").at(name).at(pytorch_variant);
  const int pytorch_same = pytorch.at("same_label").get<int>();
  EXPECT_EQ(testing::dtype_references().at("order_models").at(name).at("sentences").get<int>(),
            sentences);

  const double accuracy = 100.0 * correct / sentences;
  const double accuracy_f32 = 100.0 * correct_f32 / sentences;
  const std::string dtype_name(compute_dtype_name(dtype));
  std::cout << "[ dtype ] " << name << " " << dtype_name << ": same label as f32 " << same << "/"
            << sentences << " (PyTorch " << pytorch_variant << " " << pytorch_same << "/"
            << sentences << "), accuracy " << accuracy << " % (f32 " << accuracy_f32
            << " %, PyTorch " << pytorch_variant << " "
            << 100.0 * pytorch.at("correct").get<int>() / sentences << " %)\n";
  std::ostringstream same_text, accuracy_text;
  same_text << same << "/" << sentences << " (PyTorch " << pytorch_same << ")";
  accuracy_text << accuracy << " (f32 " << accuracy_f32 << ")";
  ::testing::Test::RecordProperty("same_label", same_text.str());
  ::testing::Test::RecordProperty("accuracy", accuracy_text.str());

  // The logits: per sentence, d = max |logit - logit_f32| over the labels. Its mean over the
  // sentences is at most the rounding spread times PyTorch's; and no sentence whose float32
  // top-two margin exceeds twice the spread times PyTorch's largest d changes its label.
  const int64_t labels_count = config.num_labels;
  double mean_logits = 0.0, max_logits = 0.0;
  for (int b = 0; b < sentences; ++b) {
    double d = 0.0;
    for (int64_t l = 0; l < labels_count; ++l) {
      const size_t i = static_cast<size_t>(b * labels_count + l);
      d = std::max(d, std::fabs(double(output.logits[i]) - order.f32.logits[i]));
    }
    mean_logits += d / sentences, max_logits = std::max(max_logits, d);
  }
  const double pytorch_mean = pytorch.at("mean_abs_logits").get<double>();
  const double pytorch_max = pytorch.at("max_abs_logits").get<double>();
  EXPECT_LE(mean_logits, kRoundingSpread * pytorch_mean)
      << name << " " << dtype_name << ": mean max |logit - logit_f32|";
  const double clear_margin = 2 * kRoundingSpread * pytorch_max;
  int clear = 0;
  for (int b = 0; b < sentences; ++b) {
    std::vector<float> row(order.f32.logits.begin() + b * labels_count,
                           order.f32.logits.begin() + (b + 1) * labels_count);
    std::partial_sort(row.begin(), row.begin() + 2, row.end(), std::greater<>());
    if (row[0] - row[1] <= clear_margin) continue;
    ++clear;
    EXPECT_EQ(labels[b], order.f32_labels[b])
        << name << " " << dtype_name << " sentence " << b << ": float32 margin " << row[0] - row[1];
  }
  std::cout << "[ dtype ] " << name << " " << dtype_name << ": |logit - logit_f32| mean "
            << mean_logits << " (PyTorch " << pytorch_mean << "), max " << max_logits
            << " (PyTorch " << pytorch_max << "); " << clear
            << " sentences with a float32 margin over " << clear_margin << "\n";
  if (name != "order-none") {
    EXPECT_GE(same, static_cast<int>(std::ceil(same_share * sentences))) << name;
  }
  EXPECT_LE(accuracy_f32 - accuracy, kMaxAccuracyDropPoints) << name;
  return output;
}

class OrderDtypeTest : public ::testing::TestWithParam<std::string> {};

TEST_P(OrderDtypeTest, Int8KeepsTheLabels) {
  TINYENC_REQUIRE_DTYPE(ComputeDtype::kInt8);
  const EncoderOutput int8 =
      check_labels(GetParam(), ComputeDtype::kInt8, kInt8SameLabels, "int8_per_channel");
  const OrderModel& order = order_model(GetParam());
  double worst = 0.0;
  for (size_t b = 0; b < order.rows.size(); ++b) {
    worst = std::max(worst, testing::dtype_distances(order.f32, int8, static_cast<int64_t>(b),
                                                     static_cast<int64_t>(order.rows[b].size()))
                                .max_abs_hidden);
  }
  // An int8 output equal to float32's would mean the dtype was never applied.
  EXPECT_GT(worst, 0.0) << GetParam() << ": int8 output equals float32's";
}

TEST_P(OrderDtypeTest, BF16KeepsTheLabels) {
  TINYENC_REQUIRE_DTYPE(ComputeDtype::kBF16);
  const EncoderOutput bf16 =
      check_labels(GetParam(), ComputeDtype::kBF16, kBF16SameLabels, "bf16_autocast");
  const OrderModel& order = order_model(GetParam());
  const double pytorch_hidden = testing::dtype_references()
                                    .at("order_models")
                                    .at(GetParam())
                                    .at("bf16_matmuls")
                                    .at("max_abs_hidden")
                                    .get<double>();
  const double max_hidden = std::max(kBF16MaxHidden, kRoundingSpread * pytorch_hidden);
  testing::DtypeDistances worst;
  for (size_t b = 0; b < order.rows.size(); ++b) {
    const testing::DtypeDistances distances = testing::dtype_distances(
        order.f32, bf16, static_cast<int64_t>(b), static_cast<int64_t>(order.rows[b].size()));
    EXPECT_GE(1.0 - distances.one_minus_cosine, kBF16MinCosine) << GetParam() << " sentence " << b;
    EXPECT_LE(distances.max_abs_hidden, max_hidden) << GetParam() << " sentence " << b;
    worst.widen(distances);
  }
  std::cout << "[ dtype ] " << GetParam() << " bf16: " << testing::describe(worst) << "\n";
  EXPECT_GT(worst.max_abs_hidden, 0.0) << GetParam() << ": bf16 output equals float32's";
}

std::string kind_of(const ::testing::TestParamInfo<std::string>& info) {
  return info.param.substr(info.param.find('-') + 1);
}

INSTANTIATE_TEST_SUITE_P(Shipped, OrderDtypeTest, ::testing::ValuesIn(kModels), kind_of);

}  // namespace
}  // namespace tinyenc
