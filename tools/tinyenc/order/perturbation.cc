#include "tools/tinyenc/order/perturbation.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <tuple>

#include "tokenizer/char_classes.h"
#include "tokenizer/utf8.h"
#include "tools/tinyenc/command.h"

namespace tinyenc::cli::order {

std::string_view unit_name(Unit unit) {
  return unit == Unit::kToken ? "token" : unit == Unit::kChar ? "char" : "word";
}

TextUnits split_units(const std::string& text, Unit unit) {
  TextUnits split;
  std::string glue, word;
  const auto end_word = [&] {
    if (word.empty()) return;
    split.glue.push_back(std::move(glue));
    split.units.push_back(std::move(word));
    glue.clear();
    word.clear();
  };
  for (char32_t c : decode_utf8(text)) {
    std::string bytes;
    append_utf8(c, bytes);
    if (unit == Unit::kWord && unicode::is_word_separator(c)) {
      end_word();
      glue += bytes;
    } else if (unit == Unit::kChar || unicode::is_cjk_ideograph(c)) {
      end_word();
      word = bytes;
      end_word();
    } else {
      word += bytes;
    }
  }
  end_word();
  split.glue.push_back(std::move(glue));
  return split;
}

std::string join_units(const TextUnits& split, const std::vector<int>& order,
                       std::vector<TokenSpan>& slot_spans) {
  std::string text = split.glue[0];
  slot_spans.clear();
  for (size_t k = 0; k < order.size(); ++k) {
    const std::string& unit = split.units[static_cast<size_t>(order[k])];
    slot_spans.push_back({text.size(), text.size() + unit.size()});
    text += unit;
    text += split.glue[k + 1];
  }
  return text;
}

std::string join_numbers(const std::vector<int>& numbers, const char* separator) {
  std::string out;
  for (size_t i = 0; i < numbers.size(); ++i) {
    if (i) out += separator;
    out += std::to_string(numbers[i]);
  }
  return out;
}

uint64_t uniform_below(std::mt19937_64& random, uint64_t n) {
  const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  uint64_t value;
  do {
    value = random();
  } while (value >= limit);
  return value % n;
}

std::vector<Reordering> reorderings(const PerturbationSpec& spec,
                                    const std::vector<std::string>& keys, Unit unit,
                                    const std::string& what) {
  const int n = static_cast<int>(keys.size());
  const std::string units =
      std::to_string(n) + " " + std::string(unit_name(unit)) + (n == 1 ? "" : "s");
  if (n < 2) throw UsageError(what + ": " + units + "; nothing to reorder");
  std::vector<int> identity(static_cast<size_t>(n));
  std::iota(identity.begin(), identity.end(), 0);

  std::vector<Reordering> out;
  std::set<std::vector<std::string>> seen = {keys};
  const auto add = [&](std::string name, const std::vector<int>& order, bool allow_repeat) {
    std::vector<std::string> sequence;
    for (int index : order) sequence.push_back(keys[static_cast<size_t>(index)]);
    if (sequence == keys) return false;
    if (!seen.insert(sequence).second && !allow_repeat) return false;
    out.push_back({std::move(name), order});
    return true;
  };

  switch (spec.kind) {
    case PerturbationKind::kSwap:
      if (spec.positions) {
        const auto [i, j] = *spec.positions;
        if (i >= n || j >= n) {
          throw UsageError("--positions " + std::to_string(i) + "," + std::to_string(j) + ": " +
                           what + " has " + units + " (positions count from 0)");
        }
        std::vector<int> order = identity;
        std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(j)]);
        if (!add("swap " + std::to_string(i) + "," + std::to_string(j), order, false)) {
          throw UsageError("--positions: in " + what + " both are '" +
                           keys[static_cast<size_t>(i)] + "'; swapping them changes nothing");
        }
      } else {
        for (int i = 0; i < n; ++i) {
          for (int j = i + 1; j < n; ++j) {
            std::vector<int> order = identity;
            std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(j)]);
            add("swap " + std::to_string(i) + "," + std::to_string(j), order, false);
          }
        }
      }
      break;
    case PerturbationKind::kReverse: {
      std::vector<int> order(identity.rbegin(), identity.rend());
      add("reverse", order, false);
      break;
    }
    case PerturbationKind::kShuffle: {
      // One generator per sentence: the same sentence gets the same shuffles whatever else runs.
      std::mt19937_64 random(spec.seed);
      std::set<std::string> distinct(keys.begin(), keys.end());
      for (int s = 1; s <= spec.shuffles && distinct.size() > 1; ++s) {
        // Draws that leave the order as it was are drawn again (at most half of all draws).
        for (bool added = false; !added;) {
          std::vector<int> order = identity;
          for (int i = n - 1; i > 0; --i) {
            std::swap(order[static_cast<size_t>(i)],
                      order[uniform_below(random, static_cast<uint64_t>(i) + 1)]);
          }
          added = add("shuffle " + std::to_string(s), order, true);
        }
      }
      break;
    }
    case PerturbationKind::kPermutations: {
      if (static_cast<size_t>(n) > kMaxPermutationUnits) {
        throw UsageError("--perturbation permutations: " + what + " has " + units +
                         "; all permutations stop at " + std::to_string(kMaxPermutationUnits) +
                         " (use shuffle)");
      }
      std::vector<int> order = identity;
      while (std::next_permutation(order.begin(), order.end())) {
        add("permutation " + join_numbers(order, ","), order, false);
      }
      break;
    }
  }
  if (out.empty()) {
    throw UsageError(what + ": no " + std::string(unit_name(unit)) +
                     " order differs from the original (" + units + ", all alike or symmetric)");
  }
  return out;
}

std::vector<size_t> movable_tokens(const Encoding& encoding) {
  std::vector<size_t> movable;
  for (size_t t = 0; t < encoding.size(); ++t) {
    if (encoding.sources[t] != TokenSource::kSpecial) movable.push_back(t);
  }
  return movable;
}

Encoding permute_tokens(const Encoding& original, const std::vector<size_t>& movable,
                        const std::vector<int>& order, std::vector<size_t>& alignment) {
  Encoding encoding = original;
  alignment.resize(original.size());
  std::iota(alignment.begin(), alignment.end(), size_t{0});
  for (size_t k = 0; k < movable.size(); ++k) {
    const size_t from = movable[static_cast<size_t>(order[k])], to = movable[k];
    encoding.tokens[to] = original.tokens[from];
    encoding.ids[to] = original.ids[from];
    encoding.token_type_ids[to] = original.token_type_ids[from];
    alignment[from] = to;
  }
  return encoding;
}

std::optional<std::vector<size_t>> align_by_units(const Encoding& original,
                                                  const std::vector<TokenSpan>& unit_spans,
                                                  const Encoding& reordered,
                                                  const std::vector<TokenSpan>& slot_spans,
                                                  const std::vector<int>& order) {
  if (original.size() != reordered.size()) return std::nullopt;
  using Key = std::tuple<int, size_t, size_t>;  // unit (-1: template token), offset, length
  const auto key_of = [](const Encoding& encoding, size_t t, const std::vector<TokenSpan>& spans,
                         const std::vector<int>* slot_units, int& specials) -> std::optional<Key> {
    if (encoding.sources[t] == TokenSource::kSpecial) return Key{-1, specials++, 0};
    const TokenSpan span = encoding.offsets[t];
    for (size_t u = 0; u < spans.size(); ++u) {
      if (span.begin >= spans[u].begin && span.end <= spans[u].end) {
        const int unit = slot_units ? (*slot_units)[u] : static_cast<int>(u);
        return Key{unit, span.begin - spans[u].begin, span.end - span.begin};
      }
    }
    return std::nullopt;  // a token across units: the text was cut differently
  };
  std::map<Key, size_t> reordered_positions;
  int specials = 0;
  for (size_t t = 0; t < reordered.size(); ++t) {
    const auto key = key_of(reordered, t, slot_spans, &order, specials);
    if (!key || !reordered_positions.emplace(*key, t).second) return std::nullopt;
  }
  std::vector<size_t> alignment(original.size());
  specials = 0;
  for (size_t t = 0; t < original.size(); ++t) {
    const auto key = key_of(original, t, unit_spans, nullptr, specials);
    const auto found = key ? reordered_positions.find(*key) : reordered_positions.end();
    if (found == reordered_positions.end() || reordered.ids[found->second] != original.ids[t]) {
      return std::nullopt;
    }
    alignment[t] = found->second;
  }
  return alignment;
}

std::optional<std::vector<size_t>> align_by_ids(const Encoding& a, const Encoding& b) {
  if (a.size() != b.size()) return std::nullopt;
  std::map<int32_t, std::vector<size_t>> positions_in_b;
  for (size_t t = b.size(); t-- > 0;) positions_in_b[b.ids[t]].push_back(t);
  std::vector<size_t> alignment(a.size());
  for (size_t t = 0; t < a.size(); ++t) {
    std::vector<size_t>& candidates = positions_in_b[a.ids[t]];
    if (candidates.empty()) return std::nullopt;
    alignment[t] = candidates.back();
    candidates.pop_back();
  }
  return alignment;
}

}  // namespace tinyenc::cli::order
