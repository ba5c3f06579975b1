// JSON documents the loaders read: a repeated key anywhere is refused with the path to it, since
// readers disagree on which of the values counts.
#include "engine/io/json_document.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace tinyenc {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_json_document(text, "f.json");
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  ADD_FAILURE() << "no std::invalid_argument for " << text;
  return "";
}

TEST(JsonDocument, ParsesLikeNlohmann) {
  const std::string text = R"({"a": [1, {"b": null}, [2, 3]], "c": {"a": 1}, "d": "x"})";
  EXPECT_EQ(parse_json_document(text, "f.json"), nlohmann::json::parse(text));
  EXPECT_EQ(parse_json_document("[1, 2]", "f.json"), nlohmann::json::parse("[1, 2]"));
  // The same key in different objects is no repetition.
  EXPECT_NO_THROW(parse_json_document(R"([{"a": 1}, {"a": 2}])", "f.json"));
}

TEST(JsonDocument, RepeatedKeysAreRefusedWithTheirPath) {
  EXPECT_EQ(error_of(R"({"a": 1, "b": 2, "a": 3})"), "f.json: key 'a' appears more than once");
  EXPECT_EQ(error_of(R"({"model": {"vocab": {"x": 0, "y": 1, "x": 2}}})"),
            "f.json: model.vocab: key 'x' appears more than once");
  EXPECT_EQ(error_of(R"({"a": [0, [1], {"k": 1}, {"k": 1, "k": 1}]})"),
            "f.json: a[3]: key 'k' appears more than once");
  EXPECT_EQ(error_of(R"([{}, {"a\nb": {"c": 1, "c": 2}}])"),
            "f.json: [1].a\\nb: key 'c' appears more than once");
  // A repeated key inside a repeated key's value is found first: the parser reads in order.
  EXPECT_EQ(error_of(R"({"a": {"b": 1, "b": 2}, "a": 3})"),
            "f.json: a: key 'b' appears more than once");
}

TEST(JsonDocument, SyntaxErrorsNameTheFile) {
  const std::string error = error_of(R"({"a": )");
  EXPECT_EQ(error.rfind("f.json: not valid JSON: parse error at line 1, column 7", 0), 0u) << error;
}

TEST(JsonDocument, RepeatedJsonKeyTellsTopLevelKeys) {
  try {
    parse_json_unique_keys(R"({"t": 1, "t": 2})");
    FAIL() << "no error";
  } catch (const RepeatedJsonKey& error) {
    EXPECT_TRUE(error.top_level());
    EXPECT_EQ(error.key(), "t");
  }
  try {
    parse_json_unique_keys(R"({"t": {"dtype": 1, "dtype": 2}})");
    FAIL() << "no error";
  } catch (const RepeatedJsonKey& error) {
    EXPECT_FALSE(error.top_level());
    EXPECT_EQ(std::string(error.what()), "t: key 'dtype' appears more than once");
  }
}

}  // namespace
}  // namespace tinyenc
