// Reorderings of a sentence, as pure functions of its units: swaps, the reversal, seeded
// shuffles, every permutation; a text cut into units and joined again in another order; and
// where each token of the original went in the reordering (the alignment `order` measures the
// hidden states through). Nothing here runs a model.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenizer/encoding.h"

namespace tinyenc::cli::order {

// What a reordering moves around.
enum class Unit {
  kToken,  // the model's own tokens, ids permuted directly (template tokens stay in place)
  kChar,   // Unicode code points of the text, spaces included
  kWord,   // whitespace-separated words; each CJK ideograph is a word of its own
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

TextUnits split_units(const std::string& text, Unit unit);

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
// k-th movable slot); alignment[t] receives where the original's token t went.
Encoding permute_tokens(const Encoding& original, const std::vector<size_t>& movable,
                        const std::vector<int>& order, std::vector<size_t>& alignment);

// Where each original token went in a reordered text: a token is identified by its unit, its
// byte offset inside the unit and its length (template tokens by their rank among template
// tokens), and must keep its id. This holds whenever a unit tokenizes the same wherever it
// stands: Chinese characters, and words under WordPiece's whitespace split. nullopt when it
// does not.
std::optional<std::vector<size_t>> align_by_units(const Encoding& original,
                                                  const std::vector<TokenSpan>& unit_spans,
                                                  const Encoding& reordered,
                                                  const std::vector<TokenSpan>& slot_spans,
                                                  const std::vector<int>& order);

// --compare: B is given, not made. When B's tokens are A's rearranged, the k-th occurrence of an
// id in A is taken to be its k-th occurrence in B.
std::optional<std::vector<size_t>> align_by_ids(const Encoding& a, const Encoding& b);

}  // namespace tinyenc::cli::order
