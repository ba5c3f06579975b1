// Reorderings of a sentence, as pure functions of its units: swaps, the reversal, seeded
// shuffles, every permutation; a text cut into units and joined again in another order; and
// where each token of the original went in the reordering (the alignment `order` measures the
// hidden states through). Nothing here runs a model.
#pragma once

#include <tinyenc/encoding.h>
#include <tinyenc/tokenizer.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tinyenc::cli::order {

// What a reordering moves around.
enum class Unit {
  kToken,  // the model's own tokens, ids permuted directly (template tokens stay in place)
  kChar,   // Unicode code points of the text, spaces included
  kWord,   // words as people mean them: see split_units
};

enum class PerturbationKind { kSwap, kReverse, kShuffle, kPermutations };

// All permutations of n units are n! - 1 inputs: 5039 at 7, ten times more at 8.
constexpr size_t kMaxPermutationUnits = 7;

std::string_view unit_name(Unit unit);

// A text cut into units with the glue around them:
//   text == glue[0] + units[0] + glue[1] + ... + units[n-1] + glue[n]
// A reordering moves the units and leaves the glue (the whitespace) where it was.
struct TextUnits {
  std::vector<std::string> units;
  std::vector<std::string> glue;
};

// The words of a language written without spaces, taken from a model's own vocabulary: its
// pieces of two or more CJK ideographs (sentencepiece's word mark ▁ and WordPiece's
// continuation mark ## taken off), so that 小明 is one word when the vocabulary has it as a piece.
class Lexicon {
 public:
  Lexicon() = default;
  explicit Lexicon(const Tokenizer& tokenizer);

  // Kept when, once the marks are off, it is two or more CJK ideographs.
  void add(std::string_view piece);
  bool contains(std::u32string_view word) const { return words_.count(word) > 0; }
  size_t size() const { return words_.size(); }
  size_t longest() const { return longest_; }  // in code points

 private:
  std::set<std::u32string, std::less<>> words_;
  size_t longest_ = 0;
};

// The units of a text:
//   kChar: every code point, spaces included.
//   kWord: where the text separates Chinese with spaces (an ideograph, spaces, an ideograph),
//          the person has cut it into words: each whitespace-separated unit is one. Otherwise
//          English and other spaced scripts are cut at whitespace, and each run of CJK
//          ideographs by longest match against `lexicon` (a character in no word of it is a
//          unit of its own; no lexicon: every ideograph is one). Mixed text gets both.
TextUnits split_units(const std::string& text, Unit unit, const Lexicon* lexicon = nullptr);

// The text with units[order[k]] in slot k; slot_spans receives each slot's bytes in it.
std::string join_units(const TextUnits& split, const std::vector<int>& order,
                       std::vector<TokenSpan>& slot_spans);

// One reordering: order[k] is the original unit that lands in slot k.
struct Reordering {
  std::string name;  // "reverse", "swap 0,2", "shuffle 3", "permutation 2,0,1"
  std::vector<int> order;
};

std::string join_numbers(const std::vector<int>& numbers, const char* separator);

// Uniform in [0, n) from a generator whose output the standard fixes (std::mt19937_64), by
// rejection: std::uniform_int_distribution differs between standard libraries, and the same
// --seed should give the same shuffles everywhere.
uint64_t uniform_below(std::mt19937_64& random, uint64_t n);

struct PerturbationSpec {
  PerturbationKind kind = PerturbationKind::kSwap;
  std::optional<std::pair<int, int>> positions;  // swap only these two
  int shuffles = 10;
  uint64_t seed = 0;
};

// The reorderings of units whose identities are `keys` (equal keys are the same unit: "the"
// twice). Reorderings that leave the sequence as it was, and repeats, are dropped: they would
// only dilute the averages with zeros. `what` names the sentence in errors (UsageError).
std::vector<Reordering> reorderings(const PerturbationSpec& spec,
                                    const std::vector<std::string>& keys, Unit unit,
                                    const std::string& what);

// Token unit: the positions of the tokens that move (all but the template's, [CLS] [SEP] or
// <s> </s>, which stay in place).
std::vector<size_t> movable_tokens(const Encoding& encoding);

// `original` with its movable tokens put in `order` (order[k]: which movable token lands in the
// k-th movable slot); alignment[t] receives where the original's token t went. Each token keeps
// its offsets, which still count in the original's text.
Encoding permute_tokens(const Encoding& original, const std::vector<size_t>& movable,
                        const std::vector<int>& order, std::vector<size_t>& alignment);

// Where each original token went in a reordered text: a token is identified by its unit, its
// byte offset inside the unit and its length (template tokens by their rank among template
// tokens), and must keep its id. Whitespace a token carries with it (sentencepiece's "▁hit"
// covers " hit") is not part of it: such a token, or one of whitespace alone ("▁"), belongs to
// the unit that follows it. This holds whenever a unit tokenizes the same wherever it stands:
// Chinese characters, words under WordPiece's whitespace split or sentencepiece's ▁. nullopt
// when it does not.
std::optional<std::vector<size_t>> align_by_units(const Encoding& original,
                                                  const std::vector<TokenSpan>& unit_spans,
                                                  const Encoding& reordered,
                                                  const std::vector<TokenSpan>& slot_spans,
                                                  const std::vector<int>& order);

// --compare: B is given, not made. When B's tokens are A's rearranged, the k-th occurrence of an
// id in A is taken to be its k-th occurrence in B. Template tokens ([CLS] [SEP], <s> </s>) are
// matched to template tokens only, in order.
std::optional<std::vector<size_t>> align_by_ids(const Encoding& a, const Encoding& b);

// A reordered text's alignment: by units when each unit tokenized as it did in place, else by ids
// when the tokens are still a permutation of the original's (the same multiset of ids; a unit
// whose tokens changed at its new place can still leave that true), else nullopt.
std::optional<std::vector<size_t>> align_reordered(const Encoding& original,
                                                   const std::vector<TokenSpan>& unit_spans,
                                                   const Encoding& reordered,
                                                   const std::vector<TokenSpan>& slot_spans,
                                                   const std::vector<int>& order);

}  // namespace tinyenc::cli::order
