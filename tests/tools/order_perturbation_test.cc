// The reorderings of `tinyenc order`, called directly: units cut and joined, every perturbation
// kind, the token permutation and both alignments.
#include "tools/tinyenc/order/perturbation.h"

#include <gtest/gtest.h>
#include <tinyenc/tokenizer.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "tests/support/temp_folder.h"
#include "tools/tinyenc/command.h"

namespace {

using namespace tinyenc;
using namespace tinyenc::cli::order;

std::vector<std::vector<int>> orders(const std::vector<Reordering>& reorderings) {
  std::vector<std::vector<int>> out;
  for (const Reordering& reordering : reorderings) out.push_back(reordering.order);
  return out;
}

// An encoding whose tokens are the units of `text` one each (byte offsets as a tokenizer gives
// them), between a <s> and a </s>.
Encoding encode_units(const std::string& text, Unit unit, const std::map<std::string, int>& ids) {
  const TextUnits split = split_units(text, unit);
  std::vector<int> identity(split.units.size());
  for (size_t i = 0; i < identity.size(); ++i) identity[i] = static_cast<int>(i);
  std::vector<TokenSpan> spans;
  join_units(split, identity, spans);
  Encoding encoding;
  encoding.append("<s>", 1, 0, TokenSource::kSpecial, {});
  for (size_t u = 0; u < split.units.size(); ++u) {
    encoding.append(split.units[u], ids.at(split.units[u]), 0, TokenSource::kFirst, spans[u]);
  }
  encoding.append("</s>", 2, 0, TokenSource::kSpecial, {});
  return encoding;
}

TEST(OrderPerturbation, WordsKeepTheirGlueAndEachIdeographIsAWord) {
  const TextUnits split = split_units("  the cat 我打你 ", Unit::kWord);
  EXPECT_EQ(split.units, (std::vector<std::string>{"the", "cat", "我", "打", "你"}));
  EXPECT_EQ(split.glue, (std::vector<std::string>{"  ", " ", " ", "", "", " "}));
  std::vector<TokenSpan> spans;
  EXPECT_EQ(join_units(split, {4, 1, 2, 3, 0}, spans), "  你 cat 我打the ");
  ASSERT_EQ(spans.size(), 5u);
  EXPECT_EQ(spans[0].begin, 2u);
  EXPECT_EQ(spans[0].end, 5u);  // 你: three bytes
  EXPECT_EQ(split_units("a b", Unit::kChar).units, (std::vector<std::string>{"a", " ", "b"}));
}

// An encoding with the given tokens (piece, id, byte range), between a <s> and a </s>.
struct Piece {
  std::string token;
  int32_t id;
  size_t begin, end;
};
Encoding encode_pieces(const std::vector<Piece>& pieces) {
  Encoding encoding;
  encoding.append("<s>", 1, 0, TokenSource::kSpecial, {});
  for (const Piece& piece : pieces) {
    encoding.append(piece.token, piece.id, 0, TokenSource::kFirst, {piece.begin, piece.end});
  }
  encoding.append("</s>", 2, 0, TokenSource::kSpecial, {});
  return encoding;
}

std::vector<std::string> units_of(const std::string& text, const Lexicon* lexicon) {
  return split_units(text, Unit::kWord, lexicon).units;
}

using Units = std::vector<std::string>;

TEST(OrderPerturbation, LexiconTakesTheVocabularysChineseWords) {
  Lexicon lexicon;
  for (const char* piece :
       {"\u2581小明", "##小红", "打了", "小", "\u2581hit", "hello", "小明's", "\u2581", "##"}) {
    lexicon.add(piece);
  }
  EXPECT_EQ(lexicon.size(), 3u);  // 小明 小红 打了: two or more ideographs, marks off
  EXPECT_TRUE(lexicon.contains(U"小明"));
  EXPECT_TRUE(lexicon.contains(U"小红"));
  EXPECT_FALSE(lexicon.contains(U"小"));
  EXPECT_EQ(lexicon.longest(), 2u);
}

TEST(OrderPerturbation, ChineseIsCutByLongestMatchInTheVocabulary) {
  Lexicon lexicon;
  for (const char* piece : {"小明", "小红", "打了", "老师", "小明被", "明被"}) lexicon.add(piece);
  // Longest match from the left: 小明被 before 小明, so 小明被 / 小红 / 打了.
  EXPECT_EQ(units_of("小明被小红打了", &lexicon), (Units{"小明被", "小红", "打了"}));
  Lexicon two;
  for (const char* piece : {"小明", "小红"}) two.add(piece);
  EXPECT_EQ(units_of("小明被小红打了", &two), (Units{"小明", "被", "小红", "打", "了"}));
  // No lexicon, or one without the words: each ideograph is a word.
  EXPECT_EQ(units_of("小明被小红打了", nullptr), (Units{"小", "明", "被", "小", "红", "打", "了"}));
  EXPECT_EQ(units_of("我打你", &two), (Units{"我", "打", "你"}));
}

TEST(OrderPerturbation, EnglishIsCutAtSpacesAndMixedTextGetsBoth) {
  Lexicon lexicon;
  for (const char* piece : {"小明", "小红", "打了"}) lexicon.add(piece);
  EXPECT_EQ(units_of("Xiaoming hit Xiaohong", &lexicon), (Units{"Xiaoming", "hit", "Xiaohong"}));
  const TextUnits mixed = split_units("I saw 小明打了小红, twice", Unit::kWord, &lexicon);
  EXPECT_EQ(mixed.units, (Units{"I", "saw", "小明", "打了", "小红", ",", "twice"}));
  EXPECT_EQ(mixed.glue, (Units{"", " ", " ", "", "", "", " ", ""}));
  // The glue stays where it was: swapping 小明 and 小红 keeps "I saw " and ", twice".
  std::vector<TokenSpan> spans;
  EXPECT_EQ(join_units(mixed, {0, 1, 4, 3, 2, 5, 6}, spans), "I saw 小红打了小明, twice");
}

TEST(OrderPerturbation, SpacesBetweenChineseWordsAreThePersonsCut) {
  // 打了 is in no lexicon here, yet the person wrote it as one word.
  Lexicon lexicon;
  lexicon.add("小红");
  EXPECT_EQ(units_of("小明 被 小红 打了", &lexicon), (Units{"小明", "被", "小红", "打了"}));
  EXPECT_EQ(units_of("小明 被 小红 打了", nullptr), (Units{"小明", "被", "小红", "打了"}));
  // English around Chinese is not such a cut: 小明打 is still segmented.
  EXPECT_EQ(units_of("say 小明打 now", nullptr), (Units{"say", "小", "明", "打", "now"}));
}

TEST(OrderPerturbation, LexiconFromAWordPieceVocabulary) {
  const Tokenizer tokenizer = [] {
    const tinyenc::testing::TempFolder dir("tinyenc_lexicon");
    std::ofstream(dir / "vocab.txt") << "[PAD]\n[UNK]\n[CLS]\n[SEP]\n小\n明\n红\n打\n被\n了\n"
                                        "小明\n##小红\nhit\n##s\n";
    return Tokenizer::load_file((dir / "vocab.txt").string());
  }();  // the file is gone before the lexicon is made
  const Lexicon lexicon(tokenizer);
  EXPECT_EQ(lexicon.size(), 2u);
  EXPECT_EQ(units_of("小明被小红打了", &lexicon), (Units{"小明", "被", "小红", "打", "了"}));
}

TEST(OrderPerturbation, SentencepieceWordsAlignAcrossTheirSpaces) {
  // "Xiaoming hit Xiaohong" as sentencepiece cuts it: "▁hit" covers " hit", the space before the
  // word; the first word has none. Swapped, "Xiaohong" comes first and loses its space.
  const std::string text = "Xiaoming hit Xiaohong";
  const Encoding original = encode_pieces({{"\u2581Xiao", 10, 0, 4},
                                           {"ming", 11, 4, 8},
                                           {"\u2581hit", 12, 8, 12},
                                           {"\u2581Xiao", 10, 12, 17},
                                           {"hong", 13, 17, 21}});
  const TextUnits split = split_units(text, Unit::kWord);
  std::vector<TokenSpan> unit_spans, slot_spans;
  join_units(split, {0, 1, 2}, unit_spans);
  const std::vector<int> order = {2, 1, 0};
  ASSERT_EQ(join_units(split, order, slot_spans), "Xiaohong hit Xiaoming");
  const Encoding swapped = encode_pieces({{"\u2581Xiao", 10, 0, 4},
                                          {"hong", 13, 4, 8},
                                          {"\u2581hit", 12, 8, 12},
                                          {"\u2581Xiao", 10, 12, 17},
                                          {"ming", 11, 17, 21}});
  const auto alignment = align_by_units(original, unit_spans, swapped, slot_spans, order);
  ASSERT_TRUE(alignment.has_value());
  // Each ▁Xiao follows its own word: the one of Xiaoming to 4, the one of Xiaohong to 1.
  EXPECT_EQ(*alignment, (std::vector<size_t>{0, 4, 5, 3, 1, 2, 6}));
  EXPECT_EQ(align_reordered(original, unit_spans, swapped, slot_spans, order), alignment);
  // By ids alone the first ▁Xiao is taken for the first: still a permutation, another pairing.
  EXPECT_EQ(align_by_ids(original, swapped), (std::vector<size_t>{0, 1, 5, 3, 4, 2, 6}));

  // A piece of whitespace alone ("▁" before an unknown "we") goes with the word after it.
  const Encoding spaced =
      encode_pieces({{"T", 20, 0, 1}, {"he", 21, 1, 3}, {"\u2581", 22, 3, 4}, {"we", 23, 4, 6}});
  const TextUnits two = split_units("The we", Unit::kWord);
  join_units(two, {0, 1}, unit_spans);
  ASSERT_EQ(join_units(two, {1, 0}, slot_spans), "we The");
  const Encoding reversed =
      encode_pieces({{"we", 23, 0, 2}, {"\u2581", 22, 2, 3}, {"T", 20, 3, 4}, {"he", 21, 4, 6}});
  // The "▁" stayed before the second slot while "we" moved: by units it cannot be followed; by
  // ids it is the same token, and the tokens are a permutation.
  EXPECT_FALSE(align_by_units(spaced, unit_spans, reversed, slot_spans, {1, 0}).has_value());
  EXPECT_EQ(align_reordered(spaced, unit_spans, reversed, slot_spans, {1, 0}),
            (std::vector<size_t>{0, 3, 4, 2, 1, 5}));
}

TEST(OrderPerturbation, SwapsSkipTheOnesThatChangeNothing) {
  PerturbationSpec spec;
  // "the" twice: swapping the two changes nothing and is left out.
  const auto swaps = reorderings(spec, {"the", "cat", "the"}, Unit::kWord, "s");
  EXPECT_EQ(orders(swaps), (std::vector<std::vector<int>>{{1, 0, 2}, {0, 2, 1}}));
  EXPECT_EQ(swaps[0].name, "swap 0,1");
  spec.positions = std::make_pair(0, 2);
  EXPECT_THROW(reorderings(spec, {"the", "cat", "the"}, Unit::kWord, "s"), cli::UsageError);
  spec.positions = std::make_pair(0, 3);
  EXPECT_THROW(reorderings(spec, {"a", "b", "c"}, Unit::kWord, "s"), cli::UsageError);
}

TEST(OrderPerturbation, ReverseAndPermutations) {
  PerturbationSpec spec;
  spec.kind = PerturbationKind::kReverse;
  EXPECT_EQ(orders(reorderings(spec, {"a", "b", "c"}, Unit::kWord, "s")),
            (std::vector<std::vector<int>>{{2, 1, 0}}));
  // A palindrome reversed is itself: nothing to measure.
  EXPECT_THROW(reorderings(spec, {"a", "b", "a"}, Unit::kWord, "s"), cli::UsageError);
  spec.kind = PerturbationKind::kPermutations;
  EXPECT_EQ(reorderings(spec, {"a", "b", "c"}, Unit::kWord, "s").size(), 5u);  // 3! - 1
  EXPECT_THROW(
      reorderings(spec, std::vector<std::string>(kMaxPermutationUnits + 1, "x"), Unit::kWord, "s"),
      cli::UsageError);
  EXPECT_THROW(reorderings(spec, {"a"}, Unit::kWord, "s"), cli::UsageError);
}

TEST(OrderPerturbation, ShufflesAreSeededAndNeverTheOriginal) {
  PerturbationSpec spec;
  spec.kind = PerturbationKind::kShuffle;
  spec.shuffles = 20;
  spec.seed = 7;
  const std::vector<std::string> keys = {"a", "b", "c", "d"};
  const auto first = reorderings(spec, keys, Unit::kWord, "s");
  ASSERT_EQ(first.size(), 20u);
  EXPECT_EQ(orders(first), orders(reorderings(spec, keys, Unit::kWord, "s")));
  for (const Reordering& reordering : first) {
    EXPECT_NE(reordering.order, (std::vector<int>{0, 1, 2, 3})) << reordering.name;
  }
  spec.seed = 8;
  EXPECT_NE(orders(first), orders(reorderings(spec, keys, Unit::kWord, "s")));
  // The standard fixes mt19937_64's output, and the draw is by rejection: the same everywhere.
  std::mt19937_64 random(1);
  for (int i = 0; i < 1000; ++i) EXPECT_LT(uniform_below(random, 3), 3u);
}

TEST(OrderPerturbation, TokenPermutationKeepsTheTemplateInPlace) {
  const Encoding original =
      encode_units("我打你", Unit::kWord, {{"我", 10}, {"打", 11}, {"你", 12}});
  const std::vector<size_t> movable = movable_tokens(original);
  EXPECT_EQ(movable, (std::vector<size_t>{1, 2, 3}));
  std::vector<size_t> alignment;
  const Encoding swapped = permute_tokens(original, movable, {2, 1, 0}, alignment);
  EXPECT_EQ(swapped.ids, (std::vector<int32_t>{1, 12, 11, 10, 2}));
  EXPECT_EQ(alignment, (std::vector<size_t>{0, 3, 2, 1, 4}));
}

TEST(OrderPerturbation, AlignmentFollowsEachTokenToItsNewPlace) {
  const std::map<std::string, int> ids = {{"我", 10}, {"打", 11}, {"你", 12}};
  const Encoding original = encode_units("我打你", Unit::kWord, ids);
  const TextUnits split = split_units("我打你", Unit::kWord);
  std::vector<TokenSpan> unit_spans, slot_spans;
  join_units(split, {0, 1, 2}, unit_spans);
  const std::vector<int> order = {2, 1, 0};
  const Encoding reordered = encode_units(join_units(split, order, slot_spans), Unit::kWord, ids);
  const auto by_units = align_by_units(original, unit_spans, reordered, slot_spans, order);
  ASSERT_TRUE(by_units.has_value());
  EXPECT_EQ(*by_units, (std::vector<size_t>{0, 3, 2, 1, 4}));
  EXPECT_EQ(align_by_ids(original, reordered), by_units);

  // Another length, or a token that is not there: no alignment.
  Encoding shorter = reordered;
  shorter.ids.pop_back();
  shorter.tokens.pop_back();
  shorter.token_type_ids.pop_back();
  shorter.sources.pop_back();
  shorter.offsets.pop_back();
  EXPECT_FALSE(align_by_ids(original, shorter).has_value());
  Encoding other = reordered;
  other.ids[1] = 99;
  EXPECT_FALSE(align_by_ids(original, other).has_value());
  EXPECT_FALSE(align_by_units(original, unit_spans, other, slot_spans, order).has_value());
}

}  // namespace
