// The public tokenizer and text helpers, <tinyenc/tokenizer.h> and <tinyenc/text.h>, against the
// library's own tokenizer on a shipped model and against ids read off the vocabularies.
#include <gtest/gtest.h>
#include <tinyenc/text.h>
#include <tinyenc/tinyenc.h>
#include <tinyenc/tokenizer.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tests/support/temp_folder.h"
#include "tests/support/test_data.h"
#include "tokenizer/load_tokenizer.h"

namespace {

using tinyenc::Encoding;
using tinyenc::Error;
using tinyenc::Tokenizer;
using tinyenc::TokenSource;
using tinyenc::TokenSpan;

std::string shipped(const std::string& name) {
  return tinyenc::testing::pretrained_model(name).string();
}

// A BERT vocabulary of our own: [CLS] is id 2, [SEP] id 3, [UNK] id 1. The tokenizer is loaded
// from a file that is removed before it returns.
Tokenizer bert_tokenizer() {
  const tinyenc::testing::TempFolder dir("tinyenc_library_tokenizer");
  std::ofstream(dir / "vocab.txt") << "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\ncat\nsat\n"
                                      "un\n##aff\n##able\n.\n";
  return Tokenizer::load_file((dir / "vocab.txt").string());
}

template <typename Work>
Error::Kind kind_of(Work&& work) {
  try {
    work();
  } catch (const Error& e) {
    return e.kind();
  }
  ADD_FAILURE() << "no error";
  return Error::Kind::kInternal;
}

TEST(LibraryTokenizer, GivesTheLibrarysEncodings) {
  const Tokenizer tokenizer = Tokenizer::load(shipped("order-rope"));
  const std::unique_ptr<tinyenc::SubwordTokenizer> own =
      tinyenc::load_tokenizer_from_folder(shipped("order-rope"));
  for (const std::string text : {"小明打小红", "小明 打 狗x", ""}) {
    for (bool special : {true, false}) {
      const Encoding mine = tokenizer.encode(text, special);
      const Encoding theirs = own->encode(text, special);
      EXPECT_EQ(mine.ids, theirs.ids) << text;
      EXPECT_EQ(mine.tokens, theirs.tokens) << text;
      EXPECT_EQ(mine.offsets, theirs.offsets) << text;
      EXPECT_EQ(mine.sources, theirs.sources) << text;
    }
  }
  EXPECT_EQ(tokenizer.vocab_size(), own->vocab_size());
  EXPECT_EQ(tokenizer.describe(), own->describe());
}

TEST(LibraryTokenizer, SentencepieceIdsOfAShippedModel) {
  const Tokenizer tokenizer = Tokenizer::load(shipped("order-rope"));
  // <unk> 1, <s> 2, </s> 3, and the pieces of 小明打小红 (models/pretrained/order-rope).
  const Encoding encoding = tokenizer.encode("小明打小红");
  EXPECT_EQ(encoding.ids, (std::vector<int32_t>{2, 203, 79, 206, 3}));
  EXPECT_EQ(encoding.tokens, (std::vector<std::string>{"<s>", "小明", "打", "小红", "</s>"}));
  EXPECT_EQ(encoding.offsets[1], (TokenSpan{0, 6}));
  EXPECT_EQ(encoding.sources[0], TokenSource::kSpecial);
  EXPECT_EQ(tokenizer.encode("小明打小红", false).ids, (std::vector<int32_t>{203, 79, 206}));
  EXPECT_EQ(tokenizer.unk_token_id(), std::optional<int32_t>(1));
  EXPECT_EQ(tokenizer.unk_token(), "<unk>");
  EXPECT_EQ(tokenizer.template_token_ids(), (std::vector<int32_t>{2, 3}));
  EXPECT_EQ(tokenizer.template_text(), "<s> $A </s>");
  EXPECT_EQ(tokenizer.kind(), "sentencepiece");
  EXPECT_EQ(tokenizer.vocab_size(), 427);
  EXPECT_EQ(tokenizer.token_to_id("小明"), std::optional<int32_t>(203));
  EXPECT_EQ(tokenizer.token_to_id("no such piece"), std::nullopt);
  EXPECT_EQ(tokenizer.id_to_token(206), "小红");
  EXPECT_EQ(tokenizer.decode({203, 79, 206}), "小明打小红");
}

TEST(LibraryTokenizer, WordPieceFileAndPairs) {
  const Tokenizer tokenizer = bert_tokenizer();
  EXPECT_EQ(tokenizer.kind(), "wordpiece");
  EXPECT_EQ(tokenizer.vocab_size(), 12);
  EXPECT_EQ(tokenizer.template_token_ids(), (std::vector<int32_t>{2, 3}));
  EXPECT_EQ(tokenizer.template_text(true), "[CLS] $A [SEP] $B [SEP]");
  EXPECT_EQ(tokenizer.unk_token(), "[UNK]");
  const Encoding encoding = tokenizer.encode("The unaffable cat.");
  EXPECT_EQ(encoding.ids, (std::vector<int32_t>{2, 5, 8, 9, 10, 6, 11, 3}));
  const Encoding pair = tokenizer.encode_pair("the cat", "sat dog");
  EXPECT_EQ(pair.ids, (std::vector<int32_t>{2, 5, 6, 3, 7, 1, 3}));
  EXPECT_EQ(pair.token_type_ids, (std::vector<int32_t>{0, 0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(pair.sources[5], TokenSource::kSecond);
  EXPECT_EQ(pair.offsets[5], (TokenSpan{4, 7}));  // "dog" in the second text
}

TEST(LibraryTokenizer, AModelsTokenizer) {
  tinyenc::Model model = tinyenc::Model::load(shipped("order-rope"));
  const Tokenizer tokenizer = Tokenizer::of(model);
  EXPECT_EQ(tokenizer.encode("我打你").ids,
            Tokenizer::load(shipped("order-rope")).encode("我打你").ids);
  EXPECT_EQ(tokenizer.kind(), "sentencepiece");
}

TEST(LibraryTokenizer, BadInputIsTold) {
  EXPECT_EQ(kind_of([] { Tokenizer::load("/no/such/model"); }), Error::Kind::kBadInput);
  EXPECT_EQ(kind_of([] { Tokenizer::load_file("/no/such/vocab.txt"); }), Error::Kind::kBadInput);
  const Tokenizer tokenizer = Tokenizer::load(shipped("order-rope"));
  EXPECT_EQ(kind_of([&] { tokenizer.id_to_token(-1); }), Error::Kind::kBadInput);
  EXPECT_EQ(kind_of([&] { tokenizer.decode({427}); }), Error::Kind::kBadInput);
  try {
    tokenizer.encode("ab\xff");
    ADD_FAILURE() << "invalid UTF-8 encoded";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::kBadInput);
    EXPECT_NE(std::string(e.what()).find("byte 2"), std::string::npos) << e.what();
  }
}

TEST(LibraryText, QuotesDecodesAndClassifies) {
  EXPECT_EQ(tinyenc::in_quotes("a\nb"), "'a\\nb'");
  EXPECT_EQ(tinyenc::escape_control_characters("a\tb"), "a\\tb");
  EXPECT_EQ(tinyenc::find_invalid_utf8("ab\xff"), std::optional<size_t>(2));
  EXPECT_EQ(tinyenc::find_invalid_utf8("小明"), std::nullopt);
  EXPECT_EQ(tinyenc::code_points("a小"), U"a小");
  EXPECT_EQ(kind_of([] { tinyenc::code_points("\xff"); }), Error::Kind::kBadInput);
  std::string out;
  tinyenc::append_utf8(U'明', out);
  EXPECT_EQ(out, "明");
  EXPECT_TRUE(tinyenc::unicode::is_cjk_ideograph(U'小'));
  EXPECT_FALSE(tinyenc::unicode::is_cjk_ideograph(U'a'));
  EXPECT_TRUE(tinyenc::unicode::is_word_separator(U'\u3000'));
  EXPECT_FALSE(tinyenc::unicode::is_word_separator(U'x'));
}

}  // namespace
