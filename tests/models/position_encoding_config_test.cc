#include "models/position_encoding_config.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace tinyenc {
namespace {

PositionEncodingConfig parse(const char* text) {
  return parse_position_encoding_config(nlohmann::json::parse(text),
                                        "model/config.json: position_encoding");
}

std::string error_of(const char* text) {
  try {
    parse(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(PositionEncodingConfig, Defaults) {
  const PositionEncodingConfig sinusoidal = parse(R"({"kind": "sinusoidal"})");
  EXPECT_EQ(sinusoidal.kind, PositionEncodingKind::kSinusoidal);
  EXPECT_EQ(sinusoidal.sinusoidal.layout, SinusoidalLayout::kInterleaved);
  EXPECT_EQ(sinusoidal.sinusoidal.base, 10000.0);
  EXPECT_FALSE(sinusoidal.scale_embeddings);

  const PositionEncodingConfig relative = parse(R"({"kind": "relative"})");
  EXPECT_EQ(relative.relative.num_buckets, 32);
  EXPECT_EQ(relative.relative.max_distance, 128);
}

TEST(PositionEncodingConfig, ReadsEveryParameter) {
  const PositionEncodingConfig rope =
      parse(R"({"kind": "rope", "pairing": "interleaved", "theta": 500000, "rotary_dim": 16})");
  EXPECT_EQ(rope.kind, PositionEncodingKind::kRope);
  EXPECT_EQ(rope.rope.pairing, RopePairing::kInterleaved);
  EXPECT_EQ(rope.rope.theta, 500000.0);
  EXPECT_EQ(rope.rope.rotary_dim, 16);

  const PositionEncodingConfig sinusoidal =
      parse(R"({"kind": "sinusoidal", "layout": "concat", "base": 100, "scale_embeddings": true})");
  EXPECT_EQ(sinusoidal.sinusoidal.layout, SinusoidalLayout::kConcat);
  EXPECT_EQ(sinusoidal.sinusoidal.base, 100.0);
  EXPECT_TRUE(sinusoidal.scale_embeddings);

  EXPECT_EQ(parse(R"({"kind": "learned", "max_positions": 64})").max_positions, 64);
  EXPECT_EQ(parse(R"({"kind": "learned"})").padding_idx, -1);
  EXPECT_EQ(parse(R"({"kind": "learned", "max_positions": 64, "padding_idx": 1})").padding_idx, 1);
  EXPECT_EQ(parse(R"({"kind": "alibi"})").kind, PositionEncodingKind::kAlibi);
  EXPECT_EQ(parse(R"({"kind": "none"})").kind, PositionEncodingKind::kNone);
}

TEST(PositionEncodingConfig, ErrorsNameFileAndField) {
  EXPECT_EQ(error_of(R"({"kind": "spiral"})"),
            "model/config.json: position_encoding.kind: unknown kind 'spiral' (expected none, "
            "sinusoidal, learned, rope, alibi, relative or learned_relative)");
  EXPECT_EQ(error_of(R"({})"), "model/config.json: position_encoding.kind: missing");
  EXPECT_EQ(error_of(R"([1])"), "model/config.json: position_encoding: must be a JSON object");
  EXPECT_EQ(error_of(R"({"kind": "rope", "rotary_dim": 7})"),
            "model/config.json: position_encoding.rotary_dim: must be even");
  EXPECT_EQ(error_of(R"({"kind": "rope", "theta": "big"})"),
            "model/config.json: position_encoding.theta: must be a number");
  EXPECT_EQ(error_of(R"({"kind": "sinusoidal", "layout": "diagonal"})"),
            "model/config.json: position_encoding.layout: expected interleaved or concat, got "
            "'diagonal'");
  EXPECT_EQ(error_of(R"({"kind": "learned", "max_positions": 0})"),
            "model/config.json: position_encoding.max_positions: must be >= 1");
  EXPECT_EQ(error_of(R"({"kind": "learned", "max_positions": 2, "padding_idx": 1})"),
            "model/config.json: position_encoding.padding_idx: leaves no rows of the 2-row table "
            "for positions");
  EXPECT_EQ(error_of(R"({"kind": "rope", "padding_idx": 1})"),
            "model/config.json: position_encoding.padding_idx: unknown parameter for this kind");
  EXPECT_EQ(error_of(R"({"kind": "alibi", "theta": 3})"),
            "model/config.json: position_encoding.theta: unknown parameter for this kind");
  EXPECT_EQ(error_of(R"({"kind": "relative", "num_buckets": 32, "max_distance": 8})"),
            "model/config.json: position_encoding.max_distance: must be > num_buckets / 4");
}

}  // namespace
}  // namespace tinyenc
