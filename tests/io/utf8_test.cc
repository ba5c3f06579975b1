#include "engine/io/utf8.h"

#include <gtest/gtest.h>

namespace tinyenc {
namespace {

TEST(Utf8, DecodesChineseAndEmoji) {
  // 我 U+6211, 打 U+6253, 你 U+4F60, 😀 U+1F600, é U+00E9
  EXPECT_EQ(decode_utf8("我打你"), std::u32string({0x6211, 0x6253, 0x4F60}));
  EXPECT_EQ(decode_utf8("a\xC3\xA9\xF0\x9F\x98\x80"), std::u32string({0x61, 0xE9, 0x1F600}));
  EXPECT_EQ(decode_utf8(""), std::u32string());
}

TEST(Utf8, EncodeRoundTrips) {
  std::string out;
  for (char32_t c : {0x24, 0xA2, 0x20AC, 0x10348, 0x10FFFF}) append_utf8(c, out);
  EXPECT_EQ(out, "$\xC2\xA2\xE2\x82\xAC\xF0\x90\x8D\x88\xF4\x8F\xBF\xBF");
  EXPECT_EQ(decode_utf8(out), std::u32string({0x24, 0xA2, 0x20AC, 0x10348, 0x10FFFF}));
}

TEST(Utf8, FindsFirstInvalidByte) {
  EXPECT_EQ(find_invalid_utf8("ok"), std::nullopt);
  EXPECT_EQ(find_invalid_utf8("ab\x80"), 2u);            // stray continuation byte
  EXPECT_EQ(find_invalid_utf8("\xC3"), 0u);              // truncated sequence
  EXPECT_EQ(find_invalid_utf8("x\xC0\xAF"), 1u);         // overlong '/'
  EXPECT_EQ(find_invalid_utf8("\xE0\x80\xAF"), 0u);      // overlong 3-byte
  EXPECT_EQ(find_invalid_utf8("\xED\xA0\x80"), 0u);      // surrogate U+D800
  EXPECT_EQ(find_invalid_utf8("\xF4\x90\x80\x80"), 0u);  // above U+10FFFF
  EXPECT_EQ(find_invalid_utf8("\xFF"), 0u);              // never valid
  EXPECT_EQ(find_invalid_utf8("我\xE6\x89"), 3u);        // truncated after a valid char
}

TEST(Utf8, DecodeErrorNamesTheOffset) {
  try {
    decode_utf8("ab\xFF");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "invalid UTF-8 at byte 2");
  }
}

}  // namespace
}  // namespace tinyenc
