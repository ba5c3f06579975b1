// <tinyenc/forward.h> on the shipped order models: per-layer hidden states and attentions as
// Hugging Face lays them out, and position ids that begin at an offset.
#include <gtest/gtest.h>

#include <tinyenc/encoding.h>
#include <tinyenc/forward.h>
#include <tinyenc/tinyenc.h>
#include <tinyenc/tokenizer.h>

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "tests/support/test_data.h"

namespace {

std::string shipped(const std::string& name) {
  return (tinyenc::testing::source_dir() / "models/pretrained" / name).string();
}

tinyenc::Encoding encode(const tinyenc::Model& model, const std::string& text) {
  tinyenc::Encoding encoding = tinyenc::Tokenizer::of(model).encode(text);
  tinyenc::check(model, encoding, text);
  return encoding;
}

double cosine_distance(const std::vector<float>& a, const std::vector<float>& b) {
  double dot = 0, norm_a = 0, norm_b = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    dot += double(a[i]) * b[i];
    norm_a += double(a[i]) * a[i];
    norm_b += double(b[i]) * b[i];
  }
  return 1.0 - dot / std::sqrt(norm_a * norm_b);
}

TEST(Forward, HiddenStatesAreEveryLayerWithTheEmbeddingsFirst) {
  tinyenc::Model model = tinyenc::load_for_forward(shipped("order-rope"));
  EXPECT_EQ(tinyenc::position_encoding(model), "rope");
  const std::vector<tinyenc::Encoding> batch = {encode(model, "小明把小红打了"),
                                                encode(model, "我打你")};
  const std::vector<tinyenc::ForwardOutput> plain = tinyenc::forward(model, batch);
  tinyenc::ForwardRequest request;
  request.output_hidden_states = true;
  const std::vector<tinyenc::ForwardOutput> layered = tinyenc::forward(model, batch, request);
  ASSERT_EQ(plain.size(), 2u);
  ASSERT_EQ(layered.size(), 2u);
  const size_t d = static_cast<size_t>(model.dimension());
  for (size_t b = 0; b < batch.size(); ++b) {
    SCOPED_TRACE(b);
    const tinyenc::ForwardOutput& output = layered[b];
    EXPECT_TRUE(plain[b].hidden_states.empty());
    ASSERT_EQ(output.hidden_states.size(), static_cast<size_t>(tinyenc::num_layers(model)) + 1);
    for (const std::vector<float>& layer : output.hidden_states) {
      EXPECT_EQ(layer.size(), batch[b].size() * d);
    }
    EXPECT_EQ(output.hidden_states.back(), output.last_hidden_state);
    ASSERT_EQ(output.last_hidden_state.size(), plain[b].last_hidden_state.size());
    for (size_t i = 0; i < output.last_hidden_state.size(); ++i) {
      ASSERT_NEAR(output.last_hidden_state[i], plain[b].last_hidden_state[i], 1e-4f) << i;
    }
    EXPECT_NE(output.hidden_states.front(), output.hidden_states.back());
    // The same label and probabilities whether the batch ran padded or packed.
    EXPECT_EQ(output.label, plain[b].label);
    EXPECT_EQ(output.label, tinyenc::Model::load(shipped("order-rope"))
                                .classify({b == 0 ? "小明把小红打了" : "我打你"})[0]
                                .id);
    ASSERT_EQ(output.probabilities.size(), model.labels().size());
  }
}

TEST(Forward, AttentionRowsAreProbabilities) {
  tinyenc::Model model = tinyenc::load_for_forward(shipped("order-alibi"));
  const std::vector<tinyenc::Encoding> batch = {encode(model, "我打你"),
                                                encode(model, "小明把小红打了")};
  tinyenc::ForwardRequest request;
  request.output_attentions = true;
  const std::vector<tinyenc::ForwardOutput> outputs = tinyenc::forward(model, batch, request);
  const size_t heads = static_cast<size_t>(tinyenc::attention_heads(model));
  ASSERT_GT(heads, 0u);
  for (size_t b = 0; b < batch.size(); ++b) {
    const size_t tokens = batch[b].size();
    EXPECT_TRUE(outputs[b].hidden_states.empty());
    ASSERT_EQ(outputs[b].attentions.size(), static_cast<size_t>(tinyenc::num_layers(model)));
    for (const std::vector<float>& layer : outputs[b].attentions) {
      ASSERT_EQ(layer.size(), heads * tokens * tokens);
      for (size_t row = 0; row < heads * tokens; ++row) {
        float sum = 0;
        for (size_t k = 0; k < tokens; ++k) sum += layer[row * tokens + k];
        EXPECT_NEAR(sum, 1.0f, 1e-5f) << "sequence " << b << " row " << row;
      }
    }
  }
}

// position_ids = K, K+1, ...: RoPE sees only the distance between two tokens, a sinusoidal
// model the positions themselves.
TEST(Forward, PositionOffsetMovesAbsoluteEncodingsOnly) {
  tinyenc::ForwardRequest shifted;
  shifted.position_offset = 7;
  for (const char* name : {"order-rope", "order-sinusoidal"}) {
    SCOPED_TRACE(name);
    tinyenc::Model model = tinyenc::load_for_forward(shipped(name));
    const std::vector<tinyenc::Encoding> batch = {encode(model, "小明把小红打了")};
    const std::vector<float> base = tinyenc::forward(model, batch)[0].pooled;
    const std::vector<float> moved = tinyenc::forward(model, batch, shifted)[0].pooled;
    ASSERT_EQ(base.size(), static_cast<size_t>(model.dimension()));
    EXPECT_EQ(tinyenc::position_offset(model), 0);  // the request's offset was for one call
    if (std::string(name) == "order-rope") {
      EXPECT_LT(cosine_distance(base, moved), 1e-5);
    } else {
      EXPECT_GT(cosine_distance(base, moved), 1e-4);
    }
  }
}

TEST(Forward, ChecksNameTheInput) {
  tinyenc::Model model = tinyenc::load_for_forward(shipped("order-learned"));
  EXPECT_TRUE(tinyenc::has_position_table(model));
  tinyenc::Encoding encoding = tinyenc::Tokenizer::of(model).encode("我打你");
  encoding.ids[1] = 1 << 30;
  try {
    tinyenc::check(model, encoding, "sentence 2");
    ADD_FAILURE() << "an id outside the vocabulary passed";
  } catch (const tinyenc::Error& e) {
    EXPECT_EQ(e.kind(), tinyenc::Error::Kind::kBadInput);
    EXPECT_EQ(std::string(e.what()).rfind("sentence 2: id 1073741824 (position 1)", 0), 0u)
        << e.what();
  }
  tinyenc::Encoding fits = encode(model, "我打你");
  tinyenc::set_position_offset(model, model.max_tokens());
  EXPECT_THROW(tinyenc::check(model, fits, "sentence 1"), tinyenc::Error);
  EXPECT_THROW(tinyenc::validate_position_offset(tinyenc::max_position_offset() + 1),
               tinyenc::Error);
  ASSERT_TRUE(tinyenc::has_tokenizer(model));
  EXPECT_FALSE(tinyenc::Tokenizer::of(model).template_token_ids().empty());
}

}  // namespace
