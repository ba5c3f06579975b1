// <tinyenc/position_encoding.h> and <tinyenc/position_encoding_table.h> as a library user
// includes them: the kinds' descriptions and a fixed table's rows.
#include <gtest/gtest.h>

#include <tinyenc/position_encoding.h>
#include <tinyenc/position_encoding_table.h>
#include <tinyenc/tinyenc.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace {

tinyenc::Error::Kind kind_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const tinyenc::Error& e) {
    return e.kind();
  }
  ADD_FAILURE() << "no error";
  return tinyenc::Error::Kind::kInternal;
}

TEST(LibraryPositionEncoding, DescriptionsNameEveryKind) {
  const std::vector<const tinyenc::PositionEncodingDescription*>& kinds =
      tinyenc::position_encoding_descriptions();
  ASSERT_FALSE(kinds.empty());
  for (const tinyenc::PositionEncodingDescription* kind : kinds) {
    EXPECT_EQ(tinyenc::find_position_encoding_description(kind->name), kind) << kind->name;
  }
  EXPECT_EQ(tinyenc::find_position_encoding_description("no such kind"), nullptr);
  const tinyenc::PositionEncodingDescription* sinusoidal =
      tinyenc::find_position_encoding_description("sinusoidal");
  ASSERT_NE(sinusoidal, nullptr);
  EXPECT_TRUE(sinusoidal->fixed_table);
  EXPECT_TRUE(sinusoidal->adds_to_embeddings);
  EXPECT_FALSE(tinyenc::find_position_encoding_description("rope")->fixed_table);
}

// The seed article's example: PE(1, 0) = sin(1), PE(1, 1) = cos(1) (w_0 = 1).
TEST(LibraryPositionEncoding, SinusoidalTableIsTheSeedArticles) {
  const std::vector<float> rows = tinyenc::position_encoding_table("sinusoidal", 4, 0, 3);
  ASSERT_EQ(rows.size(), 12u);
  EXPECT_EQ(rows[0], 0.0f);
  EXPECT_EQ(rows[1], 1.0f);
  EXPECT_EQ(rows[4], std::sin(1.0f));
  EXPECT_EQ(rows[5], std::cos(1.0f));
  // concat: the sines first, then the cosines.
  const std::vector<float> concat =
      tinyenc::position_encoding_table("sinusoidal", 4, 0, 3, {{"layout", std::string("concat")}});
  EXPECT_EQ(concat[4], rows[4]);
  EXPECT_EQ(concat[5], rows[6]);
  EXPECT_EQ(concat[6], rows[5]);
  EXPECT_EQ(tinyenc::position_encoding_table("none", 3, 5, 2), std::vector<float>(6, 0.0f));
}

// Rows from a later first position are the same rows of a table from 0, bit for bit.
TEST(LibraryPositionEncoding, FirstPositionShiftsTheRows) {
  const tinyenc::PositionEncodingParameters parameters = {{"base", 500.0}};
  const std::vector<float> whole =
      tinyenc::position_encoding_table("sinusoidal", 16, 0, 60, parameters);
  const std::vector<float> tail =
      tinyenc::position_encoding_table("sinusoidal", 16, 50, 10, parameters);
  EXPECT_EQ(tail, std::vector<float>(whole.begin() + 50 * 16, whole.end()));
  EXPECT_NE(whole, tinyenc::position_encoding_table("sinusoidal", 16, 0, 60));
}

TEST(LibraryPositionEncoding, BadInputIsRefused) {
  using tinyenc::position_encoding_table;
  constexpr auto kBadInput = tinyenc::Error::Kind::kBadInput;
  EXPECT_EQ(kind_of([] { position_encoding_table("no such kind", 4, 0, 3); }), kBadInput);
  EXPECT_EQ(kind_of([] { position_encoding_table("rope", 4, 0, 3); }), kBadInput);
  EXPECT_EQ(kind_of([] { position_encoding_table("sinusoidal", 5, 0, 3); }), kBadInput);
  EXPECT_EQ(kind_of([] { position_encoding_table("sinusoidal", 0, 0, 3); }), kBadInput);
  EXPECT_EQ(kind_of([] { position_encoding_table("sinusoidal", 4, -1, 3); }), kBadInput);
  EXPECT_EQ(kind_of([] { position_encoding_table("sinusoidal", 4, 0, -3); }), kBadInput);
  EXPECT_EQ(kind_of([] { position_encoding_table("sinusoidal", 4, INT64_MAX, 3); }), kBadInput);
  EXPECT_EQ(kind_of([] { position_encoding_table("sinusoidal", 1 << 20, 0, INT64_MAX >> 10); }),
            kBadInput);
  EXPECT_EQ(kind_of([] {
              position_encoding_table("sinusoidal", 4, 0, 3, {{"base", 1.0}});
            }),
            kBadInput);
  EXPECT_EQ(kind_of([] {
              position_encoding_table("sinusoidal", 4, 0, 3, {{"base", true}});
            }),
            kBadInput);
  EXPECT_EQ(kind_of([] {
              position_encoding_table("sinusoidal", 4, 0, 3, {{"layout", std::string("zigzag")}});
            }),
            kBadInput);
  EXPECT_EQ(kind_of([] { position_encoding_table("none", 4, 0, 3, {{"theta", 2.0}}); }), kBadInput);
  EXPECT_EQ(kind_of([] {
              position_encoding_table("sinusoidal", 4, 0, 3, {{"base", 2.0}, {"base", 3.0}});
            }),
            kBadInput);
  EXPECT_EQ(kind_of([] {
              position_encoding_table("none", 4, 0, 3, {{"kind", std::string("rope")}});
            }),
            kBadInput);
  try {
    position_encoding_table("sinusoidal", 4, 0, 3, {{"base", 0.5}});
    ADD_FAILURE() << "base 0.5 accepted";
  } catch (const tinyenc::Error& e) {
    EXPECT_EQ(std::string(e.what()), "position_encoding.base: must be > 1");
  }
}

}  // namespace
