// The reorderings of `tinyenc order`, called directly: units cut and joined, every perturbation
// kind, the token permutation and both alignments.
#include "tools/tinyenc/order/perturbation.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

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
