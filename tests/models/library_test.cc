// The public API, <tinyenc/tinyenc.h>, on a shipped model and a golden encoder folder: real
// outputs, and errors that say whose fault they are.
#include <gtest/gtest.h>

#include <tinyenc/tinyenc.h>
#include <cmath>
#include <string>
#include <vector>

#include "engine/dtype.h"
#include "tests/support/test_data.h"

namespace {

std::string shipped(const std::string& name) {
  return (tinyenc::testing::source_dir() / "models/pretrained" / name).string();
}

tinyenc::Error::Kind kind_of_load(const std::string& folder, const tinyenc::Options& options) {
  try {
    tinyenc::Model::load(folder, options);
  } catch (const tinyenc::Error& e) {
    return e.kind();
  }
  ADD_FAILURE() << folder << " loaded";
  return tinyenc::Error::Kind::kInternal;
}

TEST(Library, EmbedsAndClassifiesTexts) {
  tinyenc::Model model = tinyenc::Model::load(shipped("order-rope"));
  const std::vector<std::vector<float>> embeddings = model.embed({"我打你", "你打我"});
  ASSERT_EQ(embeddings.size(), 2u);
  ASSERT_EQ(static_cast<int64_t>(embeddings[0].size()), model.dimension());
  EXPECT_NE(embeddings[0], embeddings[1]);  // rope sees the order

  const std::vector<tinyenc::Classification> labels = model.classify({"我打你", "你打我"});
  ASSERT_EQ(labels.size(), 2u);
  EXPECT_NE(labels[0].id, labels[1].id);  // the agent changes with the order
  for (const tinyenc::Classification& label : labels) {
    EXPECT_EQ(label.label, model.labels().at(static_cast<size_t>(label.id)));
    float sum = 0;
    for (float p : label.probabilities) sum += p;
    EXPECT_NEAR(sum, 1.0f, 1e-5f);
  }
}

// Options::position_offset shifts every text: ALiBi sees only i - j (the same numbers), a
// sinusoidal model sees the positions, and a learned table refuses texts pushed past its rows.
TEST(Library, PositionOffsetShiftsEveryText) {
  tinyenc::Options shifted;
  shifted.position_offset = 9;
  EXPECT_EQ(tinyenc::Model::load(shipped("order-alibi")).embed({"小明把小红打了"}),
            tinyenc::Model::load(shipped("order-alibi"), shifted).embed({"小明把小红打了"}));
  EXPECT_NE(tinyenc::Model::load(shipped("order-sinusoidal")).embed({"小明把小红打了"}),
            tinyenc::Model::load(shipped("order-sinusoidal"), shifted).embed({"小明把小红打了"}));
  tinyenc::Options past;
  past.position_offset = tinyenc::Model::load(shipped("order-learned")).max_tokens();
  tinyenc::Model learned = tinyenc::Model::load(shipped("order-learned"), past);
  try {
    learned.embed({"我打你"});
    ADD_FAILURE() << "a text past the learned table ran";
  } catch (const tinyenc::Error& e) {
    EXPECT_EQ(e.kind(), tinyenc::Error::Kind::kBadInput);
    EXPECT_NE(std::string(e.what()).find("position offset"), std::string::npos) << e.what();
  }
  past.position_offset = -1;
  EXPECT_EQ(kind_of_load(shipped("order-rope"), past), tinyenc::Error::Kind::kBadInput);
}

TEST(Library, NormalizesWhenAsked) {
  tinyenc::Options options;
  options.normalize = true;
  tinyenc::Model model = tinyenc::Model::load(shipped("order-none"), options);
  const std::vector<std::vector<float>> embeddings = model.embed({"我打你"});
  double norm = 0;
  for (float value : embeddings[0]) norm += double(value) * value;
  EXPECT_NEAR(std::sqrt(norm), 1.0, 1e-5);
}

TEST(Library, ForwardRunsRawIds) {
  tinyenc::Model model = tinyenc::Model::load(shipped("order-none"));
  const std::vector<tinyenc::Output> outputs = model.forward({{1, 5, 9, 2}, {1, 9, 5, 2}});
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(static_cast<int64_t>(outputs[0].hidden.size()), 4 * model.dimension());
  // No position encoding and mean pooling: the same tokens in another order, the same output.
  for (size_t i = 0; i < outputs[0].embedding.size(); ++i) {
    EXPECT_NEAR(outputs[0].embedding[i], outputs[1].embedding[i], 1e-5f);
  }
  try {
    model.forward({{1, 100000}});
    FAIL() << "an id outside the vocabulary ran";
  } catch (const tinyenc::Error& e) {
    EXPECT_EQ(e.kind(), tinyenc::Error::Kind::kBadInput);
    EXPECT_NE(std::string(e.what()).find("outside the vocabulary"), std::string::npos) << e.what();
  }
}

TEST(Library, BadInputIsTold) {
  EXPECT_EQ(kind_of_load("/no/such/model", {}), tinyenc::Error::Kind::kBadInput);
  tinyenc::Options unknown;
  unknown.dtype = "fp16";
  EXPECT_EQ(kind_of_load(shipped("order-rope"), unknown), tinyenc::Error::Kind::kBadInput);
  tinyenc::Options pooling;
  pooling.pooling = "sideways";
  EXPECT_EQ(kind_of_load(shipped("order-rope"), pooling), tinyenc::Error::Kind::kBadInput);
}

TEST(Library, DtypeOption) {
  tinyenc::Model plain = tinyenc::Model::load(shipped("order-rope"));
  EXPECT_EQ(plain.dtype(), "f32");  // a float checkpoint's default
  tinyenc::Options f32;
  f32.dtype = "f32";
  EXPECT_EQ(tinyenc::Model::load(shipped("order-rope"), f32).dtype(), "f32");
  tinyenc::Options automatic;
  automatic.dtype = "auto";
  EXPECT_EQ(tinyenc::Model::load(shipped("order-rope"), automatic).dtype(),
            tinyenc::compute_dtype_name(tinyenc::auto_compute_dtype().dtype));
  tinyenc::Options bf16;
  bf16.dtype = "bf16";
  const std::string missing = tinyenc::dtype_unsupported_reason(tinyenc::ComputeDtype::kBF16);
  if (missing.empty()) {
    EXPECT_EQ(tinyenc::Model::load(shipped("order-rope"), bf16).dtype(), "bf16");
  } else {
    try {
      tinyenc::Model::load(shipped("order-rope"), bf16);
      ADD_FAILURE() << "bf16 loaded on a CPU without it";
    } catch (const tinyenc::Error& e) {
      EXPECT_EQ(e.kind(), tinyenc::Error::Kind::kBadInput);
      EXPECT_EQ(std::string(e.what()), "dtype bf16: " + missing);
    }
  }
  tinyenc::Options unknown;
  unknown.dtype = "int4";
  try {
    tinyenc::Model::load(shipped("order-rope"), unknown);
  } catch (const tinyenc::Error& e) {
    EXPECT_EQ(std::string(e.what()), "dtype 'int4': expected f32, bf16, int8 or auto");
  }
}

}  // namespace
