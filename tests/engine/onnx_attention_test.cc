// ONNX Attention conformance cases (opset 23) through the engine's attention core:
// softmax(scale * Q K^T + mask) V with strided views, 3-D and 4-D layouts, masks, a custom
// scale, different value head size, grouped-query heads and causal masking. (The softcap case
// is left out: no encoder tinyenc runs caps its scores.)
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "engine/ops/attention.h"
#include "engine/ops/softmax_rows.h"
#include "tests/support/float_tolerance.h"
#include "tests/support/test_data.h"

namespace tinyenc {
namespace {

struct Case {
  nlohmann::json json;
  const nlohmann::json* input(const std::string& name) const {
    for (const auto& entry : json["inputs"]) {
      if (entry["name"] == name) return &entry;
    }
    return nullptr;
  }
};

std::vector<float> values(const nlohmann::json& entry) {
  std::vector<float> out;
  for (const auto& value : entry["data"]) {
    out.push_back(value.is_boolean() ? (value.get<bool>() ? 1.0f : 0.0f) : value.get<float>());
  }
  return out;
}

std::vector<int64_t> shape(const nlohmann::json& entry) { return entry["shape"]; }

// [B, H, S, D] view of a 4-D tensor, or of a 3-D [B, S, H * D] one.
View4 heads_view(const float* data, const std::vector<int64_t>& dims, int64_t heads) {
  if (dims.size() == 4) {
    return View4{data,
                 {dims[0], dims[1], dims[2], dims[3]},
                 {dims[1] * dims[2] * dims[3], dims[2] * dims[3], dims[3], 1}};
  }
  const int64_t head_dim = dims[2] / heads;
  return View4{
      data, {dims[0], heads, dims[1], head_dim}, {dims[1] * dims[2], head_dim, dims[2], 1}};
}

class OnnxAttention : public ::testing::TestWithParam<std::string> {};

TEST_P(OnnxAttention, MatchesExpectedOutput) {
  TINYENC_REQUIRE_TESTDATA(dir);
  const Case c{testing::read_json(dir / "onnx" / (GetParam() + ".json"))};
  const nlohmann::json& attributes = c.json["attributes"];
  const bool is_fp16 = (*c.input("Q"))["dtype"] == "float16";
  const std::vector<float> q = values(*c.input("Q")), k = values(*c.input("K")),
                           v = values(*c.input("V"));
  const std::vector<int64_t> q_dims = shape(*c.input("Q")), k_dims = shape(*c.input("K")),
                             v_dims = shape(*c.input("V"));
  const int64_t q_heads = q_dims.size() == 4 ? q_dims[1] : attributes["q_num_heads"].get<int64_t>();
  const int64_t kv_heads =
      k_dims.size() == 4 ? k_dims[1] : attributes["kv_num_heads"].get<int64_t>();
  View4 qv = heads_view(q.data(), q_dims, q_heads);
  const View4 kv = heads_view(k.data(), k_dims, kv_heads);
  const View4 vv = heads_view(v.data(), v_dims, kv_heads);
  const int64_t batch = qv.dims[0], queries = qv.dims[2], keys = kv.dims[2];
  const int64_t head_dim = qv.dims[3], value_dim = vv.dims[3];
  const float scale = attributes.contains("scale") ? attributes["scale"].get<float>()
                                                   : 1.0f / std::sqrt(static_cast<float>(head_dim));

  // Grouped-query attention: the q heads of one kv head are adjacent, so a group's queries form
  // one [group * Tq, D] block and the whole thing is ordinary attention over kv heads.
  const int64_t group = q_heads / kv_heads;
  if (group > 1) {
    ASSERT_EQ(qv.strides[1], queries * qv.strides[2]) << "grouping needs dense heads";
  }
  qv.dims[1] = kv_heads;
  qv.dims[2] = group * queries;
  qv.strides[1] *= group;

  // Additive mask [Tq, Tk]: float values as given; boolean true = attend, false = -inf;
  // is_causal masks keys j > i.
  std::vector<float> mask;
  if (const nlohmann::json* entry = c.input("attn_mask")) {
    mask = values(*entry);
    if ((*entry)["dtype"] == "bool") {
      for (float& m : mask) m = m != 0.0f ? 0.0f : -std::numeric_limits<float>::infinity();
    }
  } else if (attributes.value("is_causal", 0) == 1) {
    mask.assign(static_cast<size_t>(queries * keys), 0.0f);
    for (int64_t i = 0; i < queries; ++i) {
      for (int64_t j = i + 1; j < keys; ++j)
        mask[i * keys + j] = -std::numeric_limits<float>::infinity();
    }
  }
  // With grouping the mask repeats per q head of the group: [group * Tq, Tk].
  std::vector<float> grouped_mask;
  for (int64_t g = 0; g < group && !mask.empty(); ++g) {
    grouped_mask.insert(grouped_mask.end(), mask.begin(), mask.end());
  }

  Runtime runtime;
  ops::AttentionCore core(runtime);
  std::vector<float> scores(static_cast<size_t>(batch * kv_heads * group * queries * keys));
  core.scores(qv, kv, scale, grouped_mask.empty() ? nullptr : grouped_mask.data(),
              {1, 1, group * queries, keys}, scores.data());
  softmax_rows(scores.data(), batch * kv_heads * group * queries, keys, scores.data());

  const std::vector<float> expected = values(c.json["outputs"][0]);
  std::vector<float> y(expected.size());
  View4 out = heads_view(y.data(), shape(c.json["outputs"][0]), q_heads);
  out.dims[1] = kv_heads;
  out.dims[2] = group * queries;
  out.strides[1] *= group;
  ASSERT_EQ(out.dims[3], value_dim);
  core.context(scores.data(), vv, out);
  // The attention core is the middle of one encoder layer (scores, softmax, context), computed
  // here and by the reference in float32 with sums in other orders: one layer's budget of
  // roundings at the largest output (6e-7 below 1). The float16 case's expected outputs went
  // through the reference in float16: its scores, softmax, context and output each round to
  // within a float16 ulp (2^-11 below 1, 2^-10 up to 2): four of those (2e-3 below 1).
  const double largest =
      testing::largest_magnitude(expected.data(), static_cast<int64_t>(expected.size()));
  const double tolerance = is_fp16 ? 4 * std::ldexp(testing::float_ulp(largest), 23 - 10)
                                   : testing::encoder_rounding_bound(largest, 1);
  for (size_t i = 0; i < expected.size(); ++i) {
    ASSERT_NEAR(y[i], expected[i], tolerance) << GetParam() << " element " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, OnnxAttention,
                         ::testing::Values("test_attention_3d", "test_attention_3d_attn_mask",
                                           "test_attention_4d", "test_attention_4d_attn_mask",
                                           "test_attention_4d_attn_mask_bool",
                                           "test_attention_4d_causal",
                                           "test_attention_4d_diff_heads_sizes",
                                           "test_attention_4d_fp16", "test_attention_4d_gqa",
                                           "test_attention_4d_scaled"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tinyenc
