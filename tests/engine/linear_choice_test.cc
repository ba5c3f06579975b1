// How a Linear layer's primitive is chosen (engine/ops/linear_choice.h): the measured row classes,
// the key, and that Matmul follows the book's choice (measuring once per shape when the book has
// none) and the fixed rule without a book; both primitives against a double-precision reference.
#include "engine/ops/linear_choice.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "engine/layers/linear.h"
#include "engine/ops/runtime.h"
#include "tests/engine/linear_reference.h"

namespace tinyenc {
namespace {

using ops::LinearPrimitive;
using testing::LinearReference;
using testing::normal_values;

TEST(LinearChoice, RowsAreMeasuredAtTheNextPowerOfTwoUpToTheCap) {
  EXPECT_EQ(ops::measured_rows(1), 1);
  EXPECT_EQ(ops::measured_rows(2), 2);
  EXPECT_EQ(ops::measured_rows(3), 4);
  EXPECT_EQ(ops::measured_rows(65), 128);
  EXPECT_EQ(ops::measured_rows(128), 128);
  EXPECT_EQ(ops::measured_rows(1000), 1024);
  EXPECT_EQ(ops::measured_rows(50000), ops::kMaxMeasuredRows);
}

TEST(LinearChoice, TheKeyNamesEverythingTheChoiceDependsOn) {
  const std::string key = ops::linear_choice_key(ComputeDtype::kBF16, 768, 3072, 100, 2);
  EXPECT_NE(key.find("bf16 768x3072 rows 128 threads 2"), std::string::npos) << key;
  EXPECT_NE(key.find("onednn "), std::string::npos) << key;
  EXPECT_NE(key.find(" isa "), std::string::npos) << key;
  EXPECT_EQ(key.find_first_of("\t\n"), std::string::npos);
  EXPECT_NE(key, ops::linear_choice_key(ComputeDtype::kBF16, 768, 3072, 100, 1));
  EXPECT_EQ(key, ops::linear_choice_key(ComputeDtype::kBF16, 768, 3072, 127, 2));
  EXPECT_EQ(ops::parse_linear_choice_mode("rule"), ops::LinearChoiceMode::kRule);
  EXPECT_EQ(ops::parse_linear_choice_mode("fastest"), std::nullopt);
  EXPECT_EQ(ops::parse_linear_primitive("matmul"), LinearPrimitive::kMatmul);
  EXPECT_EQ(ops::parse_linear_primitive("matmu"), std::nullopt);
}

// A book in memory; uninstalled when the test ends.
class FakeBook {
 public:
  FakeBook() {
    ops::set_linear_choice_book(
        [this](const std::string& key, const std::function<std::string()>& measure) {
          auto it = entries.find(key);
          if (it == entries.end()) {
            ++measured;
            it = entries.emplace(key, measure()).first;
          }
          return std::optional<std::string>(it->second);
        });
  }
  ~FakeBook() { ops::set_linear_choice_book(nullptr); }
  std::map<std::string, std::string> entries;
  int measured = 0;
};

class LinearChoiceFollows : public ::testing::Test {
 protected:
  static constexpr int64_t kRows = 20, kIn = 96, kOut = 64;
  void SetUp() override {
    if (ops::linear_choice_mode() != ops::LinearChoiceMode::kMeasure) {
      GTEST_SKIP() << "TINYENC_LINEAR is set: the choice is forced";
    }
  }
  // Runs f32 Linear and checks it against the reference; returns its implementation.
  std::string run() {
    Runtime runtime;
    Linear linear(runtime, LinearSource::of_f32(w_.data(), kOut, kIn), b_.data(),
                  ComputeDtype::kF32);
    std::vector<float> y(static_cast<size_t>(kRows * kOut));
    linear(x_.data(), kRows, y.data());
    const LinearReference reference(x_.data(), w_.data(), b_.data(), kRows, kIn, kOut);
    EXPECT_EQ(reference.mismatch(ComputeDtype::kF32, kRows, Epilogue::kNone, nullptr, y.data()),
              "");
    return linear.implementation();
  }
  std::string key() const {
    return ops::linear_choice_key(ComputeDtype::kF32, kIn, kOut, kRows, current_threads());
  }
  // oneDNN names its 1x1 convolutions "brgconv_1x1:...", "jit_1x1:avx2", "jit_uni_int8_1x1:..."
  // and its matmuls "brg:...", "gemm:jit", ...
  static bool convolution(const std::string& implementation) {
    return implementation.find("1x1") != std::string::npos ||
           implementation.find("conv") != std::string::npos;
  }

  std::vector<float> x_ = normal_values(kRows * kIn, 1.0f, 1);
  std::vector<float> w_ = normal_values(kOut * kIn, 0.2f, 2);
  std::vector<float> b_ = normal_values(kOut, 0.5f, 3);
};

TEST_F(LinearChoiceFollows, TheRecordedPrimitive) {
  FakeBook book;
  book.entries[key()] = "matmul";
  const std::string matmul = run();
  EXPECT_FALSE(convolution(matmul)) << matmul;
  book.entries[key()] = "convolution";
  const std::string convolution_implementation = run();
  EXPECT_TRUE(convolution(convolution_implementation)) << convolution_implementation;
  EXPECT_EQ(book.measured, 0);
}

TEST_F(LinearChoiceFollows, AMeasurementOncePerShape) {
  FakeBook book;
  const std::string first = run();
  ASSERT_EQ(book.measured, 1);
  ASSERT_EQ(book.entries.count(key()), 1u);
  const std::string& chosen = book.entries.at(key());
  EXPECT_TRUE(chosen == "convolution" || chosen == "matmul") << chosen;
  EXPECT_EQ(convolution(first), chosen == "convolution") << first;
  EXPECT_EQ(run(), first);
  EXPECT_EQ(book.measured, 1);
}

// Without a book, or with a value that names no primitive, the fixed rule: f32 convolves up to
// dtype_traits().max_convolution_rows rows.
TEST_F(LinearChoiceFollows, TheRuleWithoutABook) {
  ASSERT_LE(kRows, dtype_traits(ComputeDtype::kF32).max_convolution_rows);
  const std::string without = run();
  EXPECT_TRUE(convolution(without)) << without;
  FakeBook book;
  book.entries[key()] = "bogus";
  const std::string bogus = run();
  EXPECT_TRUE(convolution(bogus)) << bogus;
}

}  // namespace
}  // namespace tinyenc
