// `tinyenc order`: the seed article's experiment, measured. Self-attention alone is blind to
// word order ("我打你" and "你打我" give the same attention scores, only permuted); a position
// encoding is what lets a model tell the two apart. This command reorders sentences (swap two
// units, reverse, shuffle, every permutation), runs each model on the original and on every
// reordering, and reports how far the output moved: the cosine distance of the pooled
// embeddings, the largest logit change, whether the label flipped, and the same distance for the
// hidden states layer by layer, where the first layer with a distance above zero is where order
// information enters the model. `--plot DIR` draws it.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "engine/encoder.h"
#include "engine/pe/position_encoding.h"
#include "models/pipeline.h"
#include "tokenizer/char_classes.h"
#include "tokenizer/tokenizer_file.h"
#include "tokenizer/utf8.h"
#include "tools/tinyenc/command.h"
#include "tools/tinyenc/options.h"
#include "tools/tinyenc/output.h"
#include "tools/tinyenc/plot/attention_figure.h"
#include "tools/tinyenc/plot/sensitivity_figures.h"
#include "tools/tinyenc/plot/text_metrics.h"

namespace tinyenc::cli {
namespace {

// What a reordering moves around.
enum class Unit {
  kToken,  // the model's own tokens, ids permuted directly (template tokens stay in place)
  kChar,   // Unicode code points of the text, spaces included
  kWord,   // whitespace-separated words; each CJK ideograph is a word of its own
};

enum class PerturbationKind { kSwap, kReverse, kShuffle, kPermutations };

// All permutations of n units are n! - 1 inputs: 5039 at 7, ten times more at 8.
constexpr size_t kMaxPermutationUnits = 7;
// Sequences per forward pass.
constexpr size_t kBatch = 32;
// Beyond this many tokens an attention matrix is no longer a readable picture.
constexpr size_t kMaxPlottedTokens = 64;

struct OrderOptions {
  std::vector<std::string> model_flags;  // -m, one folder each
  std::vector<std::string> models_list;  // --models: folders, then possibly sentences
  std::vector<std::string> texts;
  std::string input_file;
  std::vector<std::string> ids;
  std::string perturbation = "swap";
  std::string unit = "word";
  CLI::Option* unit_option = nullptr;
  std::string positions;
  int shuffles = 10;
  uint64_t seed = 0;
  bool compare = false;
  bool json = false;
  bool csv = false;
  std::string output = "-";
  std::string plot_dir;
  int threads = 0;
};

// ---------------------------------------------------------------------------------------------
// Inputs

// One sentence: a text, or raw token ids from --ids (shown as "3,1,4").
struct Sentence {
  std::string text;
  std::optional<std::vector<int32_t>> ids;
  std::string origin;  // for errors: "sentence 2", "FILE line 3", "--ids 3,1,4"
};

// The sentence as errors name it: where it came from and, when printable, the text.
std::string describe(const Sentence& sentence) {
  if (sentence.ids || find_invalid_utf8(sentence.text)) return sentence.origin;
  return sentence.origin + " " + in_quotes(sentence.text);
}

// "1,2,3" as integers; `option` names the option in errors.
std::vector<int32_t> parse_integers(const std::string& text, const std::string& option) {
  std::vector<int32_t> ids;
  std::stringstream stream(text);
  for (std::string item; std::getline(stream, item, ',');) {
    try {
      size_t used = 0;
      const long long value = std::stoll(item, &used);
      if (used != item.size() || value < INT32_MIN || value > INT32_MAX) throw std::exception();
      ids.push_back(static_cast<int32_t>(value));
    } catch (const std::exception&) {
      throw UsageError(option + ": " + in_quotes(item) + " is not an integer");
    }
  }
  if (ids.empty()) throw UsageError(option + ": no numbers given");
  return ids;
}

// The lines of `in` as sentences, named "<name> line N".
void read_lines(std::istream& in, const std::string& name, std::vector<Sentence>& sentences) {
  size_t number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    // An empty line has no order to change; skipping it would misnumber the lines after it.
    if (line.empty()) {
      throw UsageError(name + " line " + std::to_string(number) +
                       ": empty (a line is a sentence to reorder; remove the empty ones)");
    }
    sentences.push_back({line, std::nullopt, name + " line " + std::to_string(number)});
  }
}

struct Inputs {
  std::vector<std::filesystem::path> models;
  std::vector<Sentence> sentences;
};

// `--models DIR...` takes every argument up to the next option, so with a shell glob the
// sentences typed after it land there too: its trailing arguments that are not folders are
// sentences. Anything else that is not a folder is a mistyped model.
Inputs gather_inputs(const OrderOptions& options) {
  Inputs inputs;
  size_t first_text = options.models_list.size();
  const auto is_folder = [](const std::string& path) {
    std::error_code error;  // a path that cannot be looked at (a symlink loop) is no folder
    return std::filesystem::is_directory(path, error);
  };
  while (first_text > 0 && !is_folder(options.models_list[first_text - 1])) {
    --first_text;
  }
  for (const std::string& dir : options.model_flags) inputs.models.emplace_back(dir);
  for (size_t i = 0; i < first_text; ++i) {
    if (!is_folder(options.models_list[i])) {
      throw UsageError("--models: '" + options.models_list[i] + "' is not a model folder");
    }
    inputs.models.emplace_back(options.models_list[i]);
  }
  if (inputs.models.empty()) {
    if (!options.models_list.empty()) {
      throw UsageError("--models: '" + options.models_list.front() + "' is not a model folder");
    }
    throw UsageError("no model: give -m DIR (repeatable) or --models DIR...");
  }

  std::vector<std::string> texts = options.texts;
  texts.insert(texts.end(), options.models_list.begin() + static_cast<ptrdiff_t>(first_text),
               options.models_list.end());
  for (size_t i = 0; i < texts.size(); ++i) {
    inputs.sentences.push_back({texts[i], std::nullopt, "sentence " + std::to_string(i + 1)});
  }
  if (options.input_file == "-") {
    read_lines(std::cin, "standard input", inputs.sentences);
  } else if (!options.input_file.empty()) {
    std::ifstream in(options.input_file);
    if (!in) throw UsageError(options.input_file + ": cannot open the input file");
    read_lines(in, options.input_file, inputs.sentences);
  }
  if (!options.ids.empty() && !inputs.sentences.empty()) {
    throw UsageError("--ids replaces the sentences: give one or the other");
  }
  for (const std::string& ids : options.ids) {
    inputs.sentences.push_back({ids, parse_integers(ids, "--ids"), "--ids " + ids});
  }
  if (inputs.sentences.empty()) {
    throw UsageError("no sentences: give them as arguments, with -i FILE or with --ids 1,2,3");
  }
  if (options.compare && inputs.sentences.size() % 2 != 0) {
    throw UsageError("--compare takes the sentences two at a time (A B A B ...); got " +
                     std::to_string(inputs.sentences.size()));
  }
  return inputs;
}

Unit parse_unit(const OrderOptions& options) {
  const bool ids = !options.ids.empty();
  if (ids && options.unit_option->count() == 0) return Unit::kToken;
  if (options.unit == "token") return Unit::kToken;
  if (ids) throw UsageError("--unit " + options.unit + ": --ids have no text; use --unit token");
  return options.unit == "char" ? Unit::kChar : Unit::kWord;
}

PerturbationKind parse_perturbation(const std::string& name) {
  if (name == "reverse") return PerturbationKind::kReverse;
  if (name == "shuffle") return PerturbationKind::kShuffle;
  if (name == "permutations") return PerturbationKind::kPermutations;
  return PerturbationKind::kSwap;
}

std::string_view unit_name(Unit unit) {
  return unit == Unit::kToken ? "token" : unit == Unit::kChar ? "char" : "word";
}

// ---------------------------------------------------------------------------------------------
// A model folder

// The pipeline of one model folder, as the experiment uses it: sentences given as ids keep the
// template's special tokens in place, and every forward pass keeps each layer's hidden states.
class OrderModel {
 public:
  OrderModel(const std::filesystem::path& dir, bool need_tokenizer)
      : pipeline_(dir, pipeline_options(need_tokenizer)) {
    // --ids only: a tokenizer, when the folder has one that loads, still says which ids are
    // its template's tokens (<s> </s>, [CLS] [SEP]), and those stay in place.
    if (pipeline_.has_tokenizer()) {
      for (const TemplateItem& item : pipeline_.tokenizer().special_template().single) {
        if (item.kind == TemplateItem::Kind::kSpecialToken) template_ids_.insert(item.id);
      }
    }
  }

  const std::filesystem::path& dir() const { return pipeline_.dir(); }
  std::string position_encoding() const {
    return std::string(
        position_encoding_name(pipeline_.model().config.encoder.position_encoding.kind));
  }
  int64_t layers() const { return pipeline_.model().config.encoder.layers; }
  const std::vector<std::string>& labels() const { return pipeline_.model().config.labels; }

  // The tokens of a text (with the template's special tokens), or an encoding of raw ids, in
  // which the ids of the template's special tokens count as special.
  Encoding encode(const Sentence& sentence) const {
    Encoding encoding;
    if (sentence.ids) {
      for (int32_t id : *sentence.ids) {
        const bool special = template_ids_.count(id) > 0;
        encoding.append(std::to_string(id), id, 0,
                        special ? TokenSource::kSpecial : TokenSource::kFirst, {});
      }
    } else {
      try {
        encoding = pipeline_.tokenize(sentence.text);
      } catch (const std::invalid_argument& e) {  // text that is not UTF-8
        throw std::invalid_argument(describe(sentence) + ": " + e.what());
      }
    }
    check(encoding, describe(sentence));
    return encoding;
  }

  // Ids in range and length within what the position encoding allows.
  void check(Encoding& encoding, const std::string& what) const { pipeline_.check(encoding, what); }

  // One padded forward pass keeping every layer's hidden states (and attention if asked).
  EncoderOutput forward(const std::vector<const Encoding*>& batch, bool attention) {
    ForwardOptions options;
    options.layer_hidden_states = true;
    options.attention_probabilities = attention;
    try {
      return pipeline_.forward(batch, options);
    } catch (const NonFiniteOutputError& e) {
      throw std::invalid_argument(dir().string() + ": " + e.what());
    }
  }

 private:
  static PipelineOptions pipeline_options(bool need_tokenizer) {
    PipelineOptions options;
    options.truncate_hint = "";  // reordering a cut sentence would measure something else
    options.require_tokenizer = need_tokenizer;
    options.tokenizer_hint = " (without a tokenizer, give sentences as --ids 1,2,3)";
    return options;
  }

  Pipeline pipeline_;
  std::set<int32_t> template_ids_;  // ids of the tokenizer template's special tokens
};

// ---------------------------------------------------------------------------------------------
// Units of a text and reorderings of them

// A text cut into units with the glue around them:
//   text == glue[0] + units[0] + glue[1] + ... + units[n-1] + glue[n]
// A reordering moves the units and leaves the glue (the whitespace) where it was.
struct TextUnits {
  std::vector<std::string> units;
  std::vector<std::string> glue;
};

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

// The text with units[order[k]] in slot k; slot_spans receives each slot's bytes in it.
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

// One reordering: order[k] is the original unit that lands in slot k.
struct Reordering {
  std::string name;  // "reverse", "swap 0,2", "shuffle 3", "permutation 2,0,1"
  std::vector<int> order;
};

std::string join_numbers(const std::vector<int>& numbers, const char* separator) {
  std::string out;
  for (size_t i = 0; i < numbers.size(); ++i) {
    if (i) out += separator;
    out += std::to_string(numbers[i]);
  }
  return out;
}

// Uniform in [0, n) from a generator whose output the standard fixes (std::mt19937_64), by
// rejection: std::uniform_int_distribution differs between standard libraries, and the same
// --seed should give the same shuffles everywhere.
uint64_t uniform_below(std::mt19937_64& random, uint64_t n) {
  const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  uint64_t value;
  do {
    value = random();
  } while (value >= limit);
  return value % n;
}

struct PerturbationSpec {
  PerturbationKind kind = PerturbationKind::kSwap;
  std::optional<std::pair<int, int>> positions;  // swap only these two
  int shuffles = 10;
  uint64_t seed = 0;
};

// The reorderings of units whose identities are `keys` (equal keys are the same unit: "the"
// twice). Reorderings that leave the sequence as it was, and repeats, are dropped: they would
// only dilute the averages with zeros. `what` names the sentence in errors.
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

// ---------------------------------------------------------------------------------------------
// A sentence and its reorderings, encoded for one model

struct Variant {
  std::string name;        // the reordering, or "compare"
  std::vector<int> order;  // empty for --compare
  std::string text;        // the reordered text as a person reads it
  Encoding encoding;
  // alignment[t]: the position in `encoding` of the original's token t, when every token can be
  // followed to its new place; nullopt when the reordered text tokenizes differently.
  std::optional<std::vector<size_t>> alignment;
};

struct Experiment {
  Sentence sentence;
  Encoding encoding;
  std::vector<Variant> variants;
};

std::string join_tokens(const Encoding& encoding, const std::vector<size_t>& positions) {
  std::string text;
  for (size_t position : positions) {
    if (!text.empty()) text += ' ';
    text += encoding.tokens[position];
  }
  return text;
}

// Token unit: the ids themselves are permuted, template tokens ([CLS] [SEP], <s> </s>) stay in
// place.
void reorder_tokens(const OrderModel& model, const PerturbationSpec& spec, Experiment& experiment,
                    const std::string& what) {
  const Encoding& original = experiment.encoding;
  std::vector<size_t> movable;
  for (size_t t = 0; t < original.size(); ++t) {
    if (original.sources[t] != TokenSource::kSpecial) movable.push_back(t);
  }
  std::vector<std::string> keys;
  for (size_t t : movable) keys.push_back(std::to_string(original.ids[t]));
  for (Reordering& reordering : reorderings(spec, keys, Unit::kToken, what)) {
    Variant variant;
    variant.name = std::move(reordering.name);
    variant.order = std::move(reordering.order);
    variant.encoding = original;
    std::vector<size_t> alignment(original.size());
    std::iota(alignment.begin(), alignment.end(), size_t{0});
    for (size_t k = 0; k < movable.size(); ++k) {
      const size_t from = movable[static_cast<size_t>(variant.order[k])], to = movable[k];
      variant.encoding.tokens[to] = original.tokens[from];
      variant.encoding.ids[to] = original.ids[from];
      variant.encoding.token_type_ids[to] = original.token_type_ids[from];
      alignment[from] = to;
    }
    variant.alignment = std::move(alignment);
    if (experiment.sentence.ids) {
      std::vector<int> ids(variant.encoding.ids.begin(), variant.encoding.ids.end());
      variant.text = join_numbers(ids, ",");
    } else {
      variant.text = join_tokens(variant.encoding, movable);
    }
    model.check(variant.encoding, what + " reordered (" + variant.name + ")");
    experiment.variants.push_back(std::move(variant));
  }
}

// Where each original token went in a reordered text: a token is identified by its unit, its
// byte offset inside the unit and its length (template tokens by their rank among template
// tokens), and must keep its id. This holds whenever a unit tokenizes the same wherever it
// stands: Chinese characters, and words under WordPiece's whitespace split.
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

// Char and word units: the reordered text is built and tokenized afresh.
void reorder_text(const OrderModel& model, const PerturbationSpec& spec, Unit unit,
                  Experiment& experiment, const std::string& what) {
  const TextUnits split = split_units(experiment.sentence.text, unit);
  std::vector<int> identity(split.units.size());
  std::iota(identity.begin(), identity.end(), 0);
  std::vector<TokenSpan> unit_spans;
  join_units(split, identity, unit_spans);
  for (Reordering& reordering : reorderings(spec, split.units, unit, what)) {
    Variant variant;
    variant.name = std::move(reordering.name);
    variant.order = std::move(reordering.order);
    std::vector<TokenSpan> slot_spans;
    variant.text = join_units(split, variant.order, slot_spans);
    variant.encoding =
        model.encode({variant.text, std::nullopt, what + " reordered (" + variant.name + ")"});
    variant.alignment = align_by_units(experiment.encoding, unit_spans, variant.encoding,
                                       slot_spans, variant.order);
    experiment.variants.push_back(std::move(variant));
  }
}

// --compare: B is given, not made. When B's tokens are A's rearranged, the k-th occurrence of an
// id in A is taken to be its k-th occurrence in B.
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

// ---------------------------------------------------------------------------------------------
// Measurements

struct Result {
  size_t model = 0;     // index into the models
  size_t sentence = 0;  // index of the original (A of a --compare pair)
  std::string text, perturbation, perturbed_text;
  std::vector<int> order;
  double cosine_distance = 0;
  std::optional<double> max_abs_logit_delta;
  int64_t label = -1, perturbed_label = -1;
  std::vector<double> layer_distances;
  bool token_aligned = false;
};

double cosine_distance(const float* a, const float* b, int64_t n) {
  double dot = 0, norm_a = 0, norm_b = 0;
  for (int64_t i = 0; i < n; ++i) {
    dot += double(a[i]) * b[i];
    norm_a += double(a[i]) * a[i];
    norm_b += double(b[i]) * b[i];
  }
  if (norm_a == 0 || norm_b == 0) return norm_a == norm_b ? 0.0 : 1.0;
  return std::max(0.0, 1.0 - dot / std::sqrt(norm_a * norm_b));
}

// One sequence's share of a batched forward pass.
struct SequenceView {
  const EncoderOutput* output;
  size_t row;
  size_t length;

  const float* hidden(size_t layer, size_t token) const {
    const size_t d = static_cast<size_t>(output->d_model);
    return output->layer_hidden[layer].data() + (row * output->seq + token) * d;
  }
  std::vector<float> mean_hidden(size_t layer) const {
    const size_t d = static_cast<size_t>(output->d_model);
    std::vector<float> mean(d, 0.0f);
    for (size_t t = 0; t < length; ++t) {
      for (size_t i = 0; i < d; ++i) mean[i] += hidden(layer, t)[i];
    }
    for (float& value : mean) value /= static_cast<float>(length);
    return mean;
  }
  // The pooled embedding; the mean of the last layer for models without pooling.
  std::vector<float> pooled() const {
    const size_t d = static_cast<size_t>(output->d_model);
    if (output->pooled.empty()) return mean_hidden(output->layer_hidden.size() - 1);
    return std::vector<float>(output->pooled.begin() + row * d,
                              output->pooled.begin() + (row + 1) * d);
  }
  std::vector<float> logits() const {
    if (output->logits.empty()) return {};
    const size_t labels = output->logits.size() / static_cast<size_t>(output->batch);
    return std::vector<float>(output->logits.begin() + row * labels,
                              output->logits.begin() + (row + 1) * labels);
  }
};

int64_t argmax(const std::vector<float>& values) {
  if (values.empty()) return -1;
  return std::max_element(values.begin(), values.end()) - values.begin();
}

Result measure(const SequenceView& original, const SequenceView& reordered,
               const std::optional<std::vector<size_t>>& alignment) {
  Result result;
  const int64_t d = original.output->d_model;
  const std::vector<float> a = original.pooled(), b = reordered.pooled();
  result.cosine_distance = cosine_distance(a.data(), b.data(), d);
  const std::vector<float> logits_a = original.logits(), logits_b = reordered.logits();
  if (!logits_a.empty()) {
    double largest = 0;
    for (size_t i = 0; i < logits_a.size(); ++i) {
      largest = std::max(largest, std::abs(double(logits_a[i]) - logits_b[i]));
    }
    result.max_abs_logit_delta = largest;
    result.label = argmax(logits_a);
    result.perturbed_label = argmax(logits_b);
  }
  result.token_aligned = alignment.has_value();
  for (size_t layer = 0; layer < original.output->layer_hidden.size(); ++layer) {
    double distance = 0;
    if (alignment) {
      // The token that was at t, wherever it stands now: with no position information its
      // hidden state is the same, at every layer.
      for (size_t t = 0; t < original.length; ++t) {
        distance +=
            cosine_distance(original.hidden(layer, t), reordered.hidden(layer, (*alignment)[t]), d);
      }
      distance /= static_cast<double>(original.length);
    } else {
      const std::vector<float> mean_a = original.mean_hidden(layer);
      const std::vector<float> mean_b = reordered.mean_hidden(layer);
      distance = cosine_distance(mean_a.data(), mean_b.data(), d);
    }
    result.layer_distances.push_back(distance);
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// Pictures

// The variant drawn next to the original: the one that moves units farthest (for swaps, the
// first and last unit; for 我打你 that is 你打我).
size_t plotted_variant(const Experiment& experiment) {
  size_t best = 0;
  long best_displacement = -1;
  for (size_t v = 0; v < experiment.variants.size(); ++v) {
    const std::vector<int>& order = experiment.variants[v].order;
    long displacement = 0;
    for (size_t k = 0; k < order.size(); ++k) displacement += std::abs(order[k] - long(k));
    if (displacement > best_displacement) {
      best = v;
      best_displacement = displacement;
    }
  }
  return best;
}

// A file name from a model name: letters, digits, '.', '-' and '_' kept, the rest '_'.
std::string file_stem(const std::string& name) {
  std::string stem;
  for (char c : name) {
    const bool keep =
        std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_';
    stem += keep ? c : '_';
  }
  return stem.empty() ? "model" : stem;
}

void write_file(const std::filesystem::path& path, const std::string& content) {
  OutputSink sink(path.string());
  sink.write(content);
  sink.commit();
}

// Figure 1 of the seed article for one model: layer 1's heads on A, on B, and B's matrices put
// back in A's token order.
void plot_attention(OrderModel& model, const std::string& name, const Experiment& experiment,
                    const std::filesystem::path& file) {
  const Variant& variant = experiment.variants[plotted_variant(experiment)];
  const size_t tokens_a = experiment.encoding.size(), tokens_b = variant.encoding.size();
  if (std::max(tokens_a, tokens_b) > kMaxPlottedTokens) {
    std::fprintf(stderr, "tinyenc: warning: %s: %zu tokens, too many to draw the attention\n",
                 name.c_str(), std::max(tokens_a, tokens_b));
    return;
  }
  const EncoderOutput a = model.forward({&experiment.encoding}, true);
  const EncoderOutput b = model.forward({&variant.encoding}, true);
  const int64_t heads = a.heads;
  plot::AttentionFigure figure;
  figure.heads = heads;
  figure.title = name + " (pe " + model.position_encoding() + "): attention of layer 1, by head";
  figure.note =
      "rows: queries, columns: keys. Without position information B's matrices are A's with "
      "rows and columns permuted.";
  figure.panels.push_back(
      {"A: " + experiment.sentence.text, experiment.encoding.tokens, a.attention[0]});
  figure.panels.push_back({"B: " + variant.text, variant.encoding.tokens, b.attention[0]});
  if (variant.alignment) {
    // B's probabilities looked up through the alignment: row t, column u of A's order.
    const std::vector<size_t>& align = *variant.alignment;
    const size_t t_count = tokens_a;
    std::vector<float> back(static_cast<size_t>(heads) * t_count * t_count);
    for (size_t h = 0; h < static_cast<size_t>(heads); ++h) {
      for (size_t t = 0; t < t_count; ++t) {
        for (size_t u = 0; u < t_count; ++u) {
          back[(h * t_count + t) * t_count + u] =
              b.attention[0][(h * t_count + align[t]) * t_count + align[u]];
        }
      }
    }
    figure.panels.push_back({"B in A's token order", experiment.encoding.tokens, std::move(back)});
  }
  write_file(file, plot::draw_attention_figure(figure));
}

// ---------------------------------------------------------------------------------------------
// Output

std::string number(double value) {
  if (value == 0) return "0";
  char buffer[32];
  // Noise-level distances (1e-15 for an order-blind model) show as such, not as 0.0000.
  if (std::abs(value) < 1e-4) {
    std::snprintf(buffer, sizeof buffer, "%.1e", value);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.4f", value);
  }
  return buffer;
}

// Shortest text that reads back as the same float32.
std::string shortest(double value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, static_cast<float>(value));
  return std::string(buffer, result.ptr);
}

std::string pad(const std::string& text, int columns) {
  return text +
         std::string(static_cast<size_t>(std::max(0, columns - plot::display_columns(text))), ' ');
}

std::string render_table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<int> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()), 0);
    for (size_t c = 0; c < row.size(); ++c) {
      widths[c] = std::max(widths[c], plot::display_columns(row[c]));
    }
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line = "  ";
    for (size_t c = 0; c < row.size(); ++c) {
      line += c + 1 == row.size() ? row[c] : pad(row[c], widths[c]) + "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

struct Report {
  std::vector<std::string> model_names;  // as shown in tables and file names
  std::vector<std::string> model_paths;  // as given
  std::vector<std::string> model_pe;
  std::vector<Result> results;
  std::vector<std::vector<std::string>> labels;  // [model]: config.json's id2label
  bool compare = false;
  Unit unit = Unit::kWord;
  std::string perturbation;
};

std::string label_of(const Report& report, size_t model, int64_t label) {
  if (label < 0) return "-";
  const std::vector<std::string>& names = report.labels[model];
  return label < static_cast<int64_t>(names.size()) ? names[static_cast<size_t>(label)]
                                                    : "LABEL_" + std::to_string(label);
}

// Models as rows, one table per sentence (or --compare pair).
std::string table(const Report& report, size_t sentence_count) {
  std::string out;
  bool any_mean_pooled = false;
  for (size_t s = 0; s < sentence_count; s += report.compare ? 2 : 1) {
    std::vector<std::vector<const Result*>> by_model(report.model_names.size());
    for (const Result& result : report.results) {
      if (result.sentence == s) by_model[result.model].push_back(&result);
    }
    size_t variants = 0;
    std::set<std::string> texts;
    for (const auto& results : by_model) {
      variants = std::max(variants, results.size());
      for (const Result* result : results) texts.insert(result->perturbed_text);
    }
    const Result& first = *by_model[0][0];
    const bool single = variants == 1;
    if (report.compare) {
      out += "A: " + first.text + "\nB: " + first.perturbed_text + "\n";
    } else if (single && texts.size() == 1) {
      out += first.text + "  \u2192  " + first.perturbed_text + "  (" + first.perturbation +
             ", by " + std::string(unit_name(report.unit)) + ")\n";
    } else {
      out += first.text + "  (" + report.perturbation + " by " +
             std::string(unit_name(report.unit)) + ": " + std::to_string(variants) +
             " reorderings" + (single ? "" : "; means over them, max the largest") + ")\n";
    }
    const bool text_column = single && texts.size() > 1;
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> header = {"model", "pe"};
    if (text_column) header.push_back("reordered text");
    if (report.compare) {
      header.insert(header.end(), {"label A", "label B", "cos distance"});
    } else if (single) {
      header.insert(header.end(), {"label", "reordered label", "cos distance"});
    } else {
      header.insert(header.end(), {"label", "flips", "cos distance", "max"});
    }
    header.insert(header.end(), {"max |\u0394logit|", "layer distances (0 = embeddings)"});
    rows.push_back(header);
    for (size_t m = 0; m < by_model.size(); ++m) {
      const std::vector<const Result*>& results = by_model[m];
      if (results.empty()) continue;
      std::vector<std::string> row = {report.model_names[m], report.model_pe[m]};
      if (text_column) row.push_back(results[0]->perturbed_text);
      double sum = 0, largest = 0;
      std::optional<double> logit_delta;
      int flips = 0;
      bool aligned = true;
      std::vector<double> layers(results[0]->layer_distances.size(), 0.0);
      for (const Result* result : results) {
        sum += result->cosine_distance;
        largest = std::max(largest, result->cosine_distance);
        if (result->max_abs_logit_delta) {
          logit_delta = std::max(logit_delta.value_or(0.0), *result->max_abs_logit_delta);
        }
        flips += result->label != result->perturbed_label;
        aligned = aligned && result->token_aligned;
        for (size_t l = 0; l < layers.size(); ++l) layers[l] += result->layer_distances[l];
      }
      const size_t n = results.size();
      row.push_back(label_of(report, m, results[0]->label));
      if (single) {
        std::string label_b = label_of(report, m, results[0]->perturbed_label);
        if (results[0]->label >= 0 && flips) label_b += " (flip)";
        row.push_back(label_b);
        row.push_back(number(sum));
      } else {
        row.push_back(results[0]->label >= 0 ? std::to_string(flips) + "/" + std::to_string(n)
                                             : "-");
        row.push_back(number(sum / static_cast<double>(n)));
        row.push_back(number(largest));
      }
      row.push_back(logit_delta ? number(*logit_delta) : "-");
      std::string distances;
      for (double value : layers) {
        if (!distances.empty()) distances += ' ';
        distances += number(value / static_cast<double>(n));
      }
      if (!aligned) {
        distances += " *";
        any_mean_pooled = true;
      }
      row.push_back(distances);
      rows.push_back(row);
    }
    out += render_table(rows) + "\n";
  }
  out +=
      "cos distance: 1 - cos of the pooled outputs. Layer distance l: 1 - cos of the hidden "
      "states\n"
      "entering layer l+1 (the last is the output), token by token, each token followed to its "
      "new\n"
      "place: ~0 means the model has no order information yet.\n";
  if (any_mean_pooled) {
    out +=
        "* the reordered text tokenized differently: these layer distances compare each layer's\n"
        "mean hidden state instead.\n";
  }
  return out;
}

// {"results": [...]} with one result per line: readable, and still one JSON document.
std::string to_json(const Report& report) {
  using Json = nlohmann::ordered_json;
  const auto rounded = [](double value) { return json_float(static_cast<float>(value)); };
  std::string out = "{\"results\": [";
  for (size_t r = 0; r < report.results.size(); ++r) {
    const Result& result = report.results[r];
    const bool labels = result.label >= 0;
    Json item;
    item["model"] = report.model_paths[result.model];
    item["pe"] = report.model_pe[result.model];
    item["text"] = result.text;
    item["perturbation"] = result.perturbation;
    item["unit"] = report.compare ? Json() : Json(unit_name(report.unit));
    item["order"] = report.compare ? Json() : Json(result.order);
    item["perturbed_text"] = result.perturbed_text;
    item["cosine_distance"] = rounded(result.cosine_distance);
    item["max_abs_logit_delta"] =
        result.max_abs_logit_delta ? Json(rounded(*result.max_abs_logit_delta)) : Json();
    item["label"] = labels ? Json(label_of(report, result.model, result.label)) : Json();
    item["perturbed_label"] =
        labels ? Json(label_of(report, result.model, result.perturbed_label)) : Json();
    item["label_flipped"] = labels ? Json(result.label != result.perturbed_label) : Json();
    item["layer_distances"] = Json::array();
    for (double value : result.layer_distances) item["layer_distances"].push_back(rounded(value));
    item["layer_alignment"] = result.token_aligned ? "token" : "mean";
    // Bytes that are not UTF-8 (only a folder name can still hold them here) print as U+FFFD.
    out += (r ? ",\n  " : "\n  ") + item.dump(-1, ' ', false, Json::error_handler_t::replace);
  }
  return out + "\n]}\n";
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::string to_csv(const Report& report) {
  size_t layers = 0;
  for (const Result& result : report.results) {
    layers = std::max(layers, result.layer_distances.size());
  }
  std::string out =
      "model,pe,text,perturbation,perturbed_text,cosine_distance,max_abs_logit_delta,label,"
      "perturbed_label,label_flipped,layer_alignment";
  for (size_t l = 0; l < layers; ++l) out += ",layer_" + std::to_string(l);
  out += "\n";
  for (const Result& result : report.results) {
    const bool labels = result.label >= 0;
    std::vector<std::string> fields = {
        report.model_paths[result.model],
        report.model_pe[result.model],
        result.text,
        result.perturbation,
        result.perturbed_text,
        shortest(result.cosine_distance),
        result.max_abs_logit_delta ? shortest(*result.max_abs_logit_delta) : "",
        labels ? label_of(report, result.model, result.label) : "",
        labels ? label_of(report, result.model, result.perturbed_label) : "",
        labels ? (result.label != result.perturbed_label ? "true" : "false") : "",
        result.token_aligned ? "token" : "mean"};
    for (size_t l = 0; l < layers; ++l) {
      fields.push_back(l < result.layer_distances.size() ? shortest(result.layer_distances[l])
                                                         : "");
    }
    for (size_t f = 0; f < fields.size(); ++f) {
      if (f) out += ',';
      out += csv_field(fields[f]);
    }
    out += "\n";
  }
  return out;
}

// Short names for tables and files: the folder's name, or the whole path when two folders share
// a name.
std::vector<std::string> model_names(const std::vector<std::filesystem::path>& dirs) {
  std::vector<std::string> names;
  for (const std::filesystem::path& dir : dirs) {
    std::string text = dir.string();
    while (text.size() > 1 && text.back() == '/') text.pop_back();
    names.push_back(std::filesystem::path(text).filename().string());
  }
  for (size_t i = 0; i < names.size(); ++i) {
    if (std::count(names.begin(), names.end(), names[i]) > 1) {
      for (size_t j = 0; j < names.size(); ++j) names[j] = dirs[j].string();
      break;
    }
  }
  return names;
}

// ---------------------------------------------------------------------------------------------

int run(const OrderOptions& options) {
  if (options.shuffles <= 0 || options.shuffles > 100000) {
    throw UsageError("--shuffles must be in [1, 100000], got " + std::to_string(options.shuffles));
  }
  set_threads(checked_threads(options.threads));
  const Inputs inputs = gather_inputs(options);
  const Unit unit = parse_unit(options);
  PerturbationSpec spec;
  spec.kind = parse_perturbation(options.perturbation);
  spec.shuffles = options.shuffles;
  spec.seed = options.seed;
  if (!options.positions.empty()) {
    if (spec.kind != PerturbationKind::kSwap) {
      throw UsageError("--positions only goes with --perturbation swap");
    }
    const std::vector<int32_t> pair = parse_integers(options.positions, "--positions");
    if (pair.size() != 2 || pair[0] < 0 || pair[1] < 0 || pair[0] == pair[1]) {
      throw UsageError("--positions: expected two different positions I,J counting from 0, got '" +
                       options.positions + "'");
    }
    spec.positions = std::make_pair(std::min(pair[0], pair[1]), std::max(pair[0], pair[1]));
  }
  // Fail on a bad output path before the work, not after it.
  OutputSink sink(options.output);
  if (!options.plot_dir.empty()) {
    std::error_code error;
    std::filesystem::create_directories(options.plot_dir, error);
    if (error || !std::filesystem::is_directory(options.plot_dir, error)) {
      throw UsageError(options.plot_dir + ": cannot create the folder for the pictures");
    }
  }

  Report report;
  report.compare = options.compare;
  report.unit = unit;
  report.perturbation = options.perturbation;
  report.model_names = model_names(inputs.models);
  const bool need_tokenizer = std::any_of(inputs.sentences.begin(), inputs.sentences.end(),
                                          [](const Sentence& s) { return !s.ids; });
  std::vector<plot::ModelSensitivity> sensitivities;
  for (size_t m = 0; m < inputs.models.size(); ++m) {
    OrderModel model(inputs.models[m], need_tokenizer);
    report.model_paths.push_back(inputs.models[m].string());
    report.model_pe.push_back(model.position_encoding());
    report.labels.push_back(model.labels());

    const size_t first_result = report.results.size();
    for (size_t s = 0; s < inputs.sentences.size(); s += options.compare ? 2 : 1) {
      const Sentence& sentence = inputs.sentences[s];
      const std::string what = describe(sentence);
      Experiment experiment{sentence, model.encode(sentence), {}};
      if (options.compare) {
        const Sentence& other = inputs.sentences[s + 1];
        Variant variant;
        variant.name = "compare";
        variant.text = other.text;
        variant.encoding = model.encode(other);
        variant.alignment = align_by_ids(experiment.encoding, variant.encoding);
        experiment.variants.push_back(std::move(variant));
      } else if (unit == Unit::kToken) {
        reorder_tokens(model, spec, experiment, what);
      } else {
        reorder_text(model, spec, unit, experiment, what);
      }

      const EncoderOutput original_output = model.forward({&experiment.encoding}, false);
      const SequenceView original{&original_output, 0, experiment.encoding.size()};
      for (size_t begin = 0; begin < experiment.variants.size(); begin += kBatch) {
        const size_t end = std::min(experiment.variants.size(), begin + kBatch);
        std::vector<const Encoding*> batch;
        for (size_t v = begin; v < end; ++v) batch.push_back(&experiment.variants[v].encoding);
        const EncoderOutput output = model.forward(batch, false);
        for (size_t v = begin; v < end; ++v) {
          const Variant& variant = experiment.variants[v];
          Result result =
              measure(original, {&output, v - begin, variant.encoding.size()}, variant.alignment);
          result.model = m;
          result.sentence = s;
          result.text = sentence.text;
          result.perturbation = variant.name;
          result.perturbed_text = variant.text;
          result.order = variant.order;
          report.results.push_back(std::move(result));
        }
      }
      if (!options.plot_dir.empty() && s == 0) {
        plot_attention(model, report.model_names[m], experiment,
                       std::filesystem::path(options.plot_dir) /
                           (file_stem(report.model_names[m]) + "-attention.svg"));
      }
    }

    plot::ModelSensitivity sensitivity;
    sensitivity.name = report.model_names[m];
    sensitivity.position_encoding = model.position_encoding();
    sensitivity.layer_distances.assign(static_cast<size_t>(model.layers()) + 1, 0.0);
    const size_t count = report.results.size() - first_result;
    for (size_t r = first_result; r < report.results.size(); ++r) {
      sensitivity.mean_cosine_distance += report.results[r].cosine_distance / double(count);
      for (size_t l = 0; l < sensitivity.layer_distances.size(); ++l) {
        sensitivity.layer_distances[l] += report.results[r].layer_distances[l] / double(count);
      }
    }
    sensitivities.push_back(std::move(sensitivity));
  }

  if (options.json) {
    sink.write(to_json(report));
  } else if (options.csv) {
    sink.write(to_csv(report));
  } else {
    sink.write(table(report, inputs.sentences.size()));
  }
  if (!options.plot_dir.empty()) {
    const size_t sentences =
        options.compare ? inputs.sentences.size() / 2 : inputs.sentences.size();
    const std::string subtitle =
        options.compare
            ? "given pairs (--compare), mean over " + std::to_string(sentences) + " pair(s)"
            : "mean over " + std::to_string(sentences) + " sentence(s) x every " +
                  options.perturbation + " by " + std::string(unit_name(unit));
    const std::filesystem::path dir(options.plot_dir);
    write_file(dir / "summary.svg", plot::draw_sensitivity_summary(sensitivities, subtitle));
    write_file(dir / "layers.svg", plot::draw_layer_distances(sensitivities, subtitle));
  }
  sink.commit();
  return 0;
}

}  // namespace

RunCommand add_order_command(CLI::App& root) {
  auto options = std::make_shared<OrderOptions>();
  CLI::App* command = root.add_subcommand(
      "order", "Word-order experiments: how much each model's output moves when words move");
  command->add_option("sentences", options->texts, "Sentences (or use -i FILE, --ids)")
      ->type_name("TEXT");
  command->add_option("-m,--model", options->model_flags, "Model folder (repeatable)")
      ->allow_extra_args(false)
      ->type_name("DIR");
  command
      ->add_option("--models", options->models_list,
                   "Model folders, e.g. models/pretrained/order-* (arguments after them that "
                   "are not folders are sentences)")
      ->type_name("DIR");
  command
      ->add_option("-i,--input", options->input_file,
                   "File with one sentence per line ('-': stdin)")
      ->type_name("FILE");
  command
      ->add_option("--ids", options->ids,
                   "A sentence as comma-separated token ids, no tokenizer needed (repeatable; "
                   "--unit token)")
      ->allow_extra_args(false)
      ->type_name("IDS");
  auto* perturbation =
      command
          ->add_option("-p,--perturbation", options->perturbation,
                       "swap: every pair of units exchanged (or only --positions I,J); reverse; "
                       "shuffle: --shuffles N random orders from --seed; permutations: every "
                       "order (at most 7 units)")
          ->check(CLI::IsMember({"swap", "reverse", "shuffle", "permutations"}))
          ->capture_default_str();
  auto* unit =
      command
          ->add_option("--unit", options->unit,
                       "What moves: word (whitespace-separated; each Chinese character is a "
                       "word), char (code points), token (the model's tokens, ids permuted "
                       "directly; [CLS]/[SEP], <s>/</s> stay put). Default token with --ids")
          ->check(CLI::IsMember({"token", "char", "word"}))
          ->capture_default_str();
  options->unit_option = unit;
  auto* positions =
      command->add_option("--positions", options->positions, "swap only units I,J (from 0)")
          ->type_name("I,J");
  auto* shuffles =
      command->add_option("--shuffles", options->shuffles, "Random orders per sentence")
          ->type_name("N")
          ->capture_default_str();
  auto* seed = command->add_option("--seed", options->seed, "Seed of the shuffles")
                   ->type_name("S")
                   ->capture_default_str();
  command
      ->add_flag("--compare", options->compare,
                 "Compare the given sentences in pairs (A B A B ...) instead of reordering them")
      ->excludes(perturbation)
      ->excludes(unit)
      ->excludes(positions)
      ->excludes(shuffles)
      ->excludes(seed);
  auto* json =
      command->add_flag("--json", options->json, "One JSON document, a result per reordering");
  command->add_flag("--csv", options->csv, "CSV, a row per reordering")->excludes(json);
  command
      ->add_option(
          "-o,--output", options->output,
          "Write to FILE instead of stdout (a regular file is replaced only once all is done)")
      ->type_name("FILE");
  command
      ->add_option("--plot", options->plot_dir,
                   "Draw SVG pictures into DIR: <model>-attention.svg, summary.svg, layers.svg")
      ->type_name("DIR");
  command->add_option("--threads", options->threads, "Threads (0: every CPU this process may use)")
      ->capture_default_str();
  command->footer(R"(Measures, per model and reordering:
  cosine distance   1 - cos between the pooled outputs of the original and the reordering
  max |Δlogit|      largest change of a logit; the label flips when the argmax changes
  layer distances   for layer 0 (embeddings + position encoding) .. L (the output): the mean
                    over tokens of 1 - cos between a token's hidden state in the original and the
                    same token's in the reordering. Without a position encoding every one is ~0.
                    When a reordered text tokenizes differently (char units in English), each
                    layer's mean hidden states are compared instead (marked * and
                    "layer_alignment": "mean" in JSON/CSV).
The default is every swap of two words. Reordering never moves the template's tokens ([CLS]
[SEP], <s> </s>). Reverse alone can mislead: ALiBi's bias depends only on |i - j|, which
reversing a whole sequence keeps, so an ALiBi encoder without such fixed ends cannot see it.
--ids hold in place the ids of the folder's tokenizer template (<s> </s>, [CLS] [SEP]) when it
has a tokenizer, and no token otherwise: a model pooling its first token ([CLS]) then pools
whichever token comes first, and its cosine distance measures that token's change more than the
order's.
--plot DIR draws <model>-attention.svg (layer 1's heads on the first sentence and on its
reordering that moves the units farthest, side by side, as the seed article's figure 1),
summary.svg (mean cosine distance per model, coloured by PE kind) and layers.svg.

Examples:
  tinyenc order --models models/pretrained/order-* 我打你
  tinyenc order --compare -m models/pretrained/order-rope 我打你 你打我
  tinyenc order -m DIR -p shuffle --shuffles 20 --seed 1 --json -i sentences.txt
  tinyenc order -m tests/golden/encoders/none --ids 5,9,13,21 -p permutations --plot pictures)");
  return [options] { return run(*options); };
}

}  // namespace tinyenc::cli
