// WordPiece on a small hand-made vocabulary: greedy longest-match-first, [UNK] rules, offsets,
// the BERT template for single texts and pairs, special tokens typed in the text, decoding.
#include "tokenizer/wordpiece_tokenizer.h"

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "tokenizer/vocab_txt.h"

namespace tinyenc {
namespace {

using Tokens = std::vector<std::string>;
using Ids = std::vector<int32_t>;

// ids:               0      1      2      3      4      5    6     7      8       9      10
const char* kVocab =
    "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\ncat\nsat\nun\n##aff\n##able\n"
    // 11   12      13      14 15 16 17   18    19   20   21
    "##s\nhello\nworld\n!\n,\n.\na\n##a\nis\n##n\nisn\n"
    // 22  23    24   25  26  27  28
    "'\nt\ncafe\n我\n你\n[\n]\n";

std::unique_ptr<WordPieceTokenizer> bert(bool lower_case = true) {
  TokenizerConfig config;
  config.do_lower_case = lower_case;
  return wordpiece_from_vocab_txt(kVocab, "test vocab.txt", config);
}

std::vector<TokenSpan> spans(std::initializer_list<std::pair<size_t, size_t>> list) {
  std::vector<TokenSpan> out;
  for (const auto& [begin, end] : list) out.push_back({begin, end});
  return out;
}

TEST(WordPiece, GreedyLongestMatchFirst) {
  const Encoding encoding = bert()->encode("unaffable cats", false);
  EXPECT_EQ(encoding.tokens, (Tokens{"un", "##aff", "##able", "cat", "##s"}));
  EXPECT_EQ(encoding.ids, (Ids{8, 9, 10, 6, 11}));
  EXPECT_EQ(encoding.offsets, spans({{0, 2}, {2, 5}, {5, 9}, {10, 13}, {13, 14}}));
}

TEST(WordPiece, LongestMatchIsNotTheBestSplit) {
  // "isn" wins over "is", and then "##n" has nothing to continue with: greedy, not optimal.
  EXPECT_EQ(bert()->encode("isnn", false).tokens, (Tokens{"isn", "##n"}));
  EXPECT_EQ(bert()->encode("isna", false).tokens, (Tokens{"isn", "##a"}));
}

TEST(WordPiece, UnknownWordIsOneUnkCoveringTheWord) {
  const Encoding encoding = bert()->encode("the unaffablez cat", false);
  EXPECT_EQ(encoding.tokens, (Tokens{"the", "[UNK]", "cat"}));
  EXPECT_EQ(encoding.ids, (Ids{5, 1, 6}));
  EXPECT_EQ(encoding.offsets[1], (TokenSpan{4, 14}));
}

TEST(WordPiece, WordsOverOneHundredCharactersAreUnknown) {
  const std::string hundred(100, 'a'), hundred_one(101, 'a');
  const Encoding fits = bert()->encode(hundred, false);
  ASSERT_EQ(fits.size(), 100u);
  EXPECT_EQ(fits.tokens[0], "a");
  EXPECT_EQ(fits.tokens[99], "##a");
  EXPECT_EQ(bert()->encode(hundred_one, false).tokens, (Tokens{"[UNK]"}));
}

TEST(WordPiece, OffsetsPointIntoTheOriginalBytes) {
  // "Ça" is not in the vocabulary; "Café" lower-cases and loses its accent: "cafe".
  const std::string text = "  Café, Hello!";
  const Encoding encoding = bert()->encode(text, false);
  EXPECT_EQ(encoding.tokens, (Tokens{"cafe", ",", "hello", "!"}));
  EXPECT_EQ(encoding.offsets, spans({{2, 7}, {7, 8}, {9, 14}, {14, 15}}));
  EXPECT_EQ(text.substr(2, 5), "Café");
}

TEST(WordPiece, CasedVocabularyKeepsCaseAndAccents) {
  EXPECT_EQ(bert(false)->encode("Hello hello café", false).tokens,
            (Tokens{"[UNK]", "hello", "[UNK]"}));
}

TEST(WordPiece, ChineseIdeographsAreWordsOfTheirOwn) {
  const Encoding encoding = bert()->encode("我打你", false);
  EXPECT_EQ(encoding.tokens, (Tokens{"我", "[UNK]", "你"}));
  EXPECT_EQ(encoding.offsets, spans({{0, 3}, {3, 6}, {6, 9}}));
}

TEST(WordPiece, BertTemplateForOneText) {
  const Encoding encoding = bert()->encode("the cat");
  EXPECT_EQ(encoding.tokens, (Tokens{"[CLS]", "the", "cat", "[SEP]"}));
  EXPECT_EQ(encoding.ids, (Ids{2, 5, 6, 3}));
  EXPECT_EQ(encoding.token_type_ids, (Ids{0, 0, 0, 0}));
  EXPECT_EQ(encoding.sources,
            (std::vector<TokenSource>{TokenSource::kSpecial, TokenSource::kFirst,
                                      TokenSource::kFirst, TokenSource::kSpecial}));
  EXPECT_EQ(encoding.offsets, spans({{0, 0}, {0, 3}, {4, 7}, {0, 0}}));
}

TEST(WordPiece, BertTemplateForAPairMarksTheSecondSegment) {
  const Encoding encoding = bert()->encode_pair("the cat", "sat.");
  EXPECT_EQ(encoding.tokens, (Tokens{"[CLS]", "the", "cat", "[SEP]", "sat", ".", "[SEP]"}));
  EXPECT_EQ(encoding.token_type_ids, (Ids{0, 0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(encoding.sources[4], TokenSource::kSecond);
  EXPECT_EQ(encoding.offsets[5], (TokenSpan{3, 4}));  // offsets count in the second text

  const Encoding plain = bert()->encode_pair("the cat", "sat.", false);
  EXPECT_EQ(plain.tokens, (Tokens{"the", "cat", "sat", "."}));
  EXPECT_EQ(plain.token_type_ids, (Ids{0, 0, 1, 1}));
}

TEST(WordPiece, SpecialTokensTypedInTheTextAreFound) {
  const Encoding encoding = bert()->encode("the [MASK]sat [mask]", false);
  EXPECT_EQ(encoding.tokens, (Tokens{"the", "[MASK]", "sat", "[", "[UNK]", "]"}));
  EXPECT_EQ(encoding.offsets[1], (TokenSpan{4, 10}));
}

TEST(WordPiece, NeverSplitKeepsWholeWords) {
  WordPieceOptions options;
  options.never_split = {"[CLS]", "[SEP]x"};
  auto vocab = WordPieceVocab::from_lines(kVocab, "test");
  const SpecialTokenIds ids = find_special_ids(vocab, {});
  const WordPieceTokenizer tokenizer(std::move(vocab), options, ids, plain_template(), "test");
  // A never_split word not in the vocabulary is [UNK] as a whole.
  EXPECT_EQ(tokenizer.encode("[CLS] [CLS]! [SEP]x", false).tokens,
            (Tokens{"[CLS]", "[", "[UNK]", "]", "!", "[UNK]"}));
}

TEST(WordPiece, InvalidUtf8NamesTheByte) {
  const auto tokenizer = bert();
  try {
    tokenizer->encode("the \xC3(", false);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(), "invalid UTF-8 at byte 4");
  }
  try {
    tokenizer->encode_pair("the", "\xFF");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(), "second text: invalid UTF-8 at byte 0");
  }
}

TEST(WordPiece, EmptyAndWhitespaceTextsHaveNoTokens) {
  EXPECT_EQ(bert()->encode("", false).size(), 0u);
  EXPECT_EQ(bert()->encode(" \t\n\u3000", false).size(), 0u);
  EXPECT_EQ(bert()->encode("").tokens, (Tokens{"[CLS]", "[SEP]"}));
}

TEST(WordPiece, DecodeGluesContinuationsAndDropsTemplateTokens) {
  const auto tokenizer = bert();
  EXPECT_EQ(tokenizer->decode(tokenizer->encode("The unaffable cats, hello world!").ids),
            "the unaffable cats, hello world!");
  EXPECT_EQ(tokenizer->decode(Ids{8, 1, 4}), "un [UNK] [MASK]");
  EXPECT_EQ(tokenizer->decode(Ids{}), "");
  EXPECT_THROW(tokenizer->decode(Ids{29}), std::out_of_range);
  EXPECT_THROW(tokenizer->decode(Ids{-1}), std::out_of_range);
}

TEST(WordPiece, VocabularyLookups) {
  const auto tokenizer = bert();
  EXPECT_EQ(tokenizer->vocab_size(), 29);
  EXPECT_EQ(tokenizer->token_to_id("##aff"), 9);
  EXPECT_EQ(tokenizer->token_to_id("dog"), std::nullopt);
  EXPECT_EQ(tokenizer->id_to_token(25), "我");
  EXPECT_THROW(tokenizer->id_to_token(29), std::out_of_range);
  const SpecialTokenIds& special = tokenizer->special_ids();
  EXPECT_EQ(special.pad, 0);
  EXPECT_EQ(special.unk, 1);
  EXPECT_EQ(special.cls, 2);
  EXPECT_EQ(special.sep, 3);
  EXPECT_EQ(special.mask, 4);
}

}  // namespace
}  // namespace tinyenc
