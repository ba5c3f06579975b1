// BERT's basic tokenizer, step by step: what each normalising step does to the text and to the
// byte offsets, and how the word splitters cut it.
#include "tokenizer/text_normalizer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tokenizer/char_classes.h"
#include "tokenizer/word_splitter.h"

namespace tinyenc {
namespace {

std::string normalized(const std::string& text, std::vector<NormalizeStep> steps,
                       std::vector<std::string> never_split = {}) {
  AlignedText aligned = align_code_points(text);
  normalize_text(steps, never_split, aligned);
  return utf8_of(aligned, 0, aligned.size());
}

std::vector<std::string> words(const std::string& text, WordSplit split,
                               std::vector<NormalizeStep> steps = {},
                               std::vector<std::string> never_split = {}) {
  AlignedText aligned = align_code_points(text);
  normalize_text(steps, never_split, aligned);
  std::vector<std::string> out;
  for (const WordRange& word : split_words(aligned, split, never_split)) {
    out.push_back(utf8_of(aligned, word.first, word.last));
  }
  return out;
}

TEST(CharClasses, BertDefinitions) {
  using namespace unicode;
  EXPECT_TRUE(is_bert_whitespace(U'\t'));
  EXPECT_TRUE(is_bert_whitespace(0x3000));   // ideographic space, Zs
  EXPECT_FALSE(is_bert_whitespace(0x200B));  // zero-width space is Cf, not Zs
  EXPECT_TRUE(is_bert_control(0x200D));      // zero width joiner, Cf
  EXPECT_TRUE(is_bert_control(0x01));
  EXPECT_FALSE(is_bert_control(U'\n'));
  EXPECT_TRUE(is_bert_punctuation(U'$'));  // ASCII symbol: punctuation to BERT
  EXPECT_TRUE(is_bert_punctuation(U'^'));
  EXPECT_TRUE(is_bert_punctuation(0xBF));     // ¿, Po
  EXPECT_TRUE(is_bert_punctuation(0x3002));   // 。, Po
  EXPECT_FALSE(is_bert_punctuation(0x20AC));  // €, Sc: not punctuation outside ASCII
  EXPECT_TRUE(is_cjk_ideograph(0x6211));      // 我
  EXPECT_TRUE(is_cjk_ideograph(0x20000));     // extension B
  EXPECT_FALSE(is_cjk_ideograph(0x3042));     // あ, hiragana
  EXPECT_FALSE(is_cjk_ideograph(0xAC00));     // 가, hangul
  EXPECT_TRUE(is_nonspacing_mark(0x0301));
  EXPECT_FALSE(is_nonspacing_mark(U'e'));
}

TEST(TextNormalizer, CleanDropsControlsAndUnifiesWhitespace) {
  EXPECT_EQ(normalized("a\u200Db\tc\u00A0d\x01"
                       "e\xEF\xBF\xBD"
                       "f",
                       {NormalizeStep::kCleanText}),
            "ab c de"
            "f");
  EXPECT_EQ(normalized(std::string("x\0y", 3), {NormalizeStep::kCleanText}), "xy");
}

TEST(TextNormalizer, SpacesAroundEachCjkIdeograph) {
  EXPECT_EQ(words("我打你", WordSplit::kBert, {NormalizeStep::kSpaceCjk}),
            (std::vector<std::string>{"我", "打", "你"}));
  // Kana is not in BERT's CJK ranges: it stays with its neighbours.
  EXPECT_EQ(words("猫である", WordSplit::kBert, {NormalizeStep::kSpaceCjk}),
            (std::vector<std::string>{"猫", "である"}));
}

TEST(TextNormalizer, LowercaseIsFullAndKnowsFinalSigma) {
  EXPECT_EQ(normalized("HeLLo ÀÉ", {NormalizeStep::kLowercase}), "hello àé");
  EXPECT_EQ(normalized("İ", {NormalizeStep::kLowercase}), "i\u0307");  // two code points
  EXPECT_EQ(normalized("ΟΔΟΣ ΣΑ Σ", {NormalizeStep::kLowercase}), "οδος σα σ");
  EXPECT_EQ(normalized("ΟΔΟΣ.", {NormalizeStep::kLowercase}), "οδος.");
}

TEST(TextNormalizer, StripAccentsNeedsDecompositionFirst) {
  const std::vector<NormalizeStep> bert = {NormalizeStep::kLowercase, NormalizeStep::kDecompose,
                                           NormalizeStep::kStripAccents};
  EXPECT_EQ(normalized("Hélló WoŕlḊ", bert), "hello world");
  EXPECT_EQ(normalized("İstanbul", bert), "istanbul");
  EXPECT_EQ(normalized("한", {NormalizeStep::kDecompose}), "\u1112\u1161\u11AB");  // jamo
  // Without NFD a precomposed é has no mark to strip (Hugging Face's StripAccents alone).
  EXPECT_EQ(normalized("café cafe\u0301", {NormalizeStep::kStripAccents}), "café cafe");
}

TEST(TextNormalizer, DecompositionPutsMarksInCanonicalOrder) {
  // q + dot below (ccc 220) + acute (ccc 230) is already ordered; acute + dot below is not.
  EXPECT_EQ(normalized("q\u0301\u0323", {NormalizeStep::kDecompose}), "q\u0323\u0301");
  // ǘ (u with diaeresis and acute) decomposes fully: u, U+0308, U+0301.
  EXPECT_EQ(normalized("\u01D8", {NormalizeStep::kDecompose}), "u\u0308\u0301");
}

TEST(TextNormalizer, OffsetsFollowTheInputBytes) {
  AlignedText text = align_code_points("İé x");  // İ: bytes 0-2, é: 2-4, space 4, x 5
  normalize_text(bert_normalization(true, std::nullopt), {}, text);
  ASSERT_EQ(utf8_of(text, 0, text.size()), "ie x");
  EXPECT_EQ(text[0].source, (TokenSpan{0, 2}));
  EXPECT_EQ(text[1].source, (TokenSpan{2, 4}));
  EXPECT_EQ(text[3].source, (TokenSpan{5, 6}));
}

TEST(TextNormalizer, NeverSplitWordsKeepTheirCase) {
  EXPECT_EQ(normalized("[UNK] Hi [CLS]x", bert_normalization(true, std::nullopt), {"[UNK]"}),
            "[UNK] hi [cls]x");
}

TEST(WordSplitter, BertSplitsEachPunctuationCharacter) {
  EXPECT_EQ(words("Hello, world!! $5+3 ¿qué? 10€", WordSplit::kBert),
            (std::vector<std::string>{"Hello", ",", "world", "!", "!", "$", "5", "+", "3", "¿",
                                      "qué", "?", "10€"}));
  EXPECT_EQ(words("[UNK]! [UNK]", WordSplit::kBert, {}, {"[UNK]"}),
            (std::vector<std::string>{"[", "UNK", "]", "!", "[UNK]"}));
}

TEST(WordSplitter, HuggingFaceWhitespaceKeepsPunctuationRuns) {
  EXPECT_EQ(words("hello!! don't x_y 3.5", WordSplit::kRegexWords),
            (std::vector<std::string>{"hello", "!!", "don", "'", "t", "x_y", "3", ".", "5"}));
  EXPECT_EQ(words(" a\u3000b\tc ", WordSplit::kWhitespace),
            (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(words(" a b ", WordSplit::kNone), (std::vector<std::string>{" a b "}));
  EXPECT_TRUE(words(" \t\n ", WordSplit::kBert).empty());
}

}  // namespace
}  // namespace tinyenc
