#include "order/perturbation.h"

#include <tinyenc/text.h>
#include <tinyenc/tokenizer.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <tuple>

#include "command.h"

namespace tinyenc::cli::order {

std::string_view unit_name(Unit unit) {
  return unit == Unit::kToken ? "token" : unit == Unit::kChar ? "char" : "word";
}

Lexicon::Lexicon(const Tokenizer& tokenizer) {
  for (int32_t id = 0; id < tokenizer.vocab_size(); ++id) add(tokenizer.id_to_token(id));
}

void Lexicon::add(std::string_view piece) {
  for (std::string_view mark : {std::string_view("\u2581"), std::string_view("##")}) {
    if (piece.starts_with(mark)) {
      piece.remove_prefix(mark.size());
      break;
    }
  }
  std::u32string word = code_points(piece);
  if (word.size() < 2 || !std::all_of(word.begin(), word.end(), unicode::is_cjk_ideograph)) return;
  longest_ = std::max(longest_, word.size());
  words_.insert(std::move(word));
}

namespace {

// Whether a person cut the Chinese of `text` into words: an ideograph, whitespace, an ideograph.
bool spaces_between_ideographs(const std::u32string& text) {
  bool after_ideograph = false, spaced = false;
  for (char32_t c : text) {
    if (unicode::is_cjk_ideograph(c)) {
      if (after_ideograph && spaced) return true;
      after_ideograph = true;
      spaced = false;
    } else if (unicode::is_word_separator(c)) {
      spaced = true;
    } else {
      after_ideograph = false;
    }
  }
  return false;
}

// The longest word of `lexicon` at the start of `run` (ideographs only), else its first character.
size_t longest_match(std::u32string_view run, const Lexicon* lexicon) {
  if (lexicon) {
    for (size_t length = std::min(run.size(), lexicon->longest()); length >= 2; --length) {
      if (lexicon->contains(run.substr(0, length))) return length;
    }
  }
  return 1;
}

}  // namespace

TextUnits split_units(const std::string& text, Unit unit, const Lexicon* lexicon) {
  TextUnits split;
  std::string glue, word;
  const auto end_word = [&] {
    if (word.empty()) return;
    split.glue.push_back(std::move(glue));
    split.units.push_back(std::move(word));
    glue.clear();
    word.clear();
  };
  const std::u32string characters = code_points(text);
  const bool person_cut = unit == Unit::kWord && spaces_between_ideographs(characters);
  for (size_t i = 0; i < characters.size();) {
    const char32_t c = characters[i];
    if (unit == Unit::kChar) {
      end_word();
      append_utf8(c, word);
      end_word();
      ++i;
    } else if (unicode::is_word_separator(c)) {
      end_word();
      append_utf8(c, glue);
      ++i;
    } else if (!person_cut && unicode::is_cjk_ideograph(c)) {
      size_t run = i;
      while (run < characters.size() && unicode::is_cjk_ideograph(characters[run])) ++run;
      const std::u32string_view ideographs(characters.data() + i, run - i);
      const size_t length = longest_match(ideographs, lexicon);
      end_word();
      for (size_t k = 0; k < length; ++k) append_utf8(characters[i + k], word);
      end_word();
      i += length;
    } else {
      append_utf8(c, word);
      ++i;
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
    encoding.offsets[to] = original.offsets[from];  // still counted in the original's text
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
  // (unit, offset inside it, length): the unit is -1 for template tokens, whose offset is their
  // rank; a token of whitespace alone has offset -1, -2, ... (its rank before its unit) and
  // length 0. The whitespace after the last unit stays in place: it belongs to "unit" n.
  using Key = std::tuple<int, long, size_t>;
  const auto keys_of = [](const Encoding& encoding, const std::vector<TokenSpan>& spans,
                          const std::vector<int>* slot_units) -> std::optional<std::vector<Key>> {
    const size_t n = spans.size();
    std::vector<long> glue_tokens(n + 1, 0);
    long specials = 0;
    std::vector<Key> keys;
    for (size_t t = 0; t < encoding.size(); ++t) {
      if (encoding.sources[t] == TokenSource::kSpecial) {
        keys.emplace_back(-1, specials++, 0);
        continue;
      }
      const TokenSpan span = encoding.offsets[t];
      // Slot s owns the bytes from the end of slot s - 1 to its own end: its glue, then itself.
      size_t slot = 0;
      while (slot < n && span.begin >= spans[slot].end) ++slot;
      const size_t region_end = slot < n ? spans[slot].end : SIZE_MAX;
      if (span.end > region_end) return std::nullopt;  // across units: the text was cut otherwise
      const int unit = slot == n    ? static_cast<int>(n)
                       : slot_units ? (*slot_units)[slot]
                                    : static_cast<int>(slot);
      if (slot < n && span.end > spans[slot].begin) {
        const size_t begin = std::max(span.begin, spans[slot].begin);
        keys.emplace_back(unit, static_cast<long>(begin - spans[slot].begin), span.end - begin);
      } else {
        keys.emplace_back(unit, -++glue_tokens[slot], 0);
      }
    }
    return keys;
  };
  const auto original_keys = keys_of(original, unit_spans, nullptr);
  const auto reordered_keys = keys_of(reordered, slot_spans, &order);
  if (!original_keys || !reordered_keys) return std::nullopt;
  std::map<Key, size_t> reordered_positions;
  for (size_t t = 0; t < reordered.size(); ++t) {
    if (!reordered_positions.emplace((*reordered_keys)[t], t).second) return std::nullopt;
  }
  std::vector<size_t> alignment(original.size());
  for (size_t t = 0; t < original.size(); ++t) {
    const auto found = reordered_positions.find((*original_keys)[t]);
    if (found == reordered_positions.end() || reordered.ids[found->second] != original.ids[t]) {
      return std::nullopt;
    }
    alignment[t] = found->second;
  }
  return alignment;
}

std::optional<std::vector<size_t>> align_by_ids(const Encoding& a, const Encoding& b) {
  if (a.size() != b.size()) return std::nullopt;
  // Template tokens by rank among template tokens (id -1 stands for "template token k"), text
  // tokens by id: the k-th occurrence in A is the k-th in B.
  std::map<std::pair<int64_t, int32_t>, std::vector<size_t>> positions_in_b;
  const auto key = [](const Encoding& encoding, size_t t, int32_t& specials) {
    if (encoding.sources[t] == TokenSource::kSpecial)
      return std::pair<int64_t, int32_t>(-1, specials++);
    return std::pair<int64_t, int32_t>(encoding.ids[t], 0);
  };
  int32_t specials = 0;
  std::vector<std::pair<int64_t, int32_t>> keys_b;
  for (size_t t = 0; t < b.size(); ++t) keys_b.push_back(key(b, t, specials));
  for (size_t t = b.size(); t-- > 0;) positions_in_b[keys_b[t]].push_back(t);
  std::vector<size_t> alignment(a.size());
  specials = 0;
  for (size_t t = 0; t < a.size(); ++t) {
    std::vector<size_t>& candidates = positions_in_b[key(a, t, specials)];
    if (candidates.empty() || b.ids[candidates.back()] != a.ids[t]) return std::nullopt;
    alignment[t] = candidates.back();
    candidates.pop_back();
  }
  return alignment;
}

std::optional<std::vector<size_t>> align_reordered(const Encoding& original,
                                                   const std::vector<TokenSpan>& unit_spans,
                                                   const Encoding& reordered,
                                                   const std::vector<TokenSpan>& slot_spans,
                                                   const std::vector<int>& order) {
  if (auto by_units = align_by_units(original, unit_spans, reordered, slot_spans, order)) {
    return by_units;
  }
  return align_by_ids(original, reordered);
}

}  // namespace tinyenc::cli::order
