#include "order/measurement.h"

#include <tinyenc/text.h>
#include <tinyenc/tokenizer.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <utility>

namespace tinyenc::cli::order {
namespace {

// Sequences per forward pass.
constexpr size_t kBatch = 32;

std::string join_tokens(const std::vector<std::string>& tokens,
                        const std::vector<size_t>& positions) {
  std::string text;
  for (size_t position : positions) {
    if (!text.empty()) text += ' ';
    text += tokens[position];
  }
  return text;
}

// One sequence's outputs, as the measures read them.
struct SequenceView {
  const ForwardOutput* output;
  size_t length;
  size_t d;

  const float* hidden(size_t layer, size_t token) const {
    return output->hidden_states[layer].data() + token * d;
  }
  std::vector<float> mean_hidden(size_t layer) const {
    std::vector<float> mean(d, 0.0f);
    for (size_t t = 0; t < length; ++t) {
      for (size_t i = 0; i < d; ++i) mean[i] += hidden(layer, t)[i];
    }
    for (float& value : mean) value /= static_cast<float>(length);
    return mean;
  }
  // The pooled embedding; the mean of the last layer for models without pooling.
  std::vector<float> pooled() const {
    if (output->pooled.empty()) return mean_hidden(output->hidden_states.size() - 1);
    return output->pooled;
  }
  const std::vector<float>& logits() const { return output->logits; }
};

Result measure(const SequenceView& original, const SequenceView& reordered,
               const std::optional<std::vector<size_t>>& alignment) {
  Result result;
  const int64_t d = static_cast<int64_t>(original.d);
  const std::vector<float> a = original.pooled(), b = reordered.pooled();
  result.cosine_distance = cosine_distance(a.data(), b.data(), d);
  const std::vector<float>&logits_a = original.logits(), &logits_b = reordered.logits();
  if (!logits_a.empty()) {
    const LogitChange change = compare_logits(logits_a, logits_b);
    result.max_abs_logit_delta = change.max_abs_delta;
    result.label = change.label_a;
    result.perturbed_label = change.label_b;
  }
  result.token_aligned = alignment.has_value();
  for (size_t layer = 0; layer < original.output->hidden_states.size(); ++layer) {
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

}  // namespace

std::string describe(const Sentence& sentence) {
  if (sentence.ids || find_invalid_utf8(sentence.text)) return sentence.origin;
  return sentence.origin + " " + in_quotes(sentence.text);
}

MeasuredModel::MeasuredModel(const std::filesystem::path& dir, bool need_tokenizer,
                             const std::string& dtype, int threads)
    : dir_(dir), model_(load(dir, need_tokenizer, dtype, threads)) {
  // --ids only: a tokenizer, when the folder has one that loads, still says which ids are
  // its template's tokens (<s> </s>, [CLS] [SEP]), and those stay in place.
  if (has_tokenizer(model_)) {
    const Tokenizer tokenizer = Tokenizer::of(model_);
    for (int32_t id : tokenizer.template_token_ids()) template_ids_.insert(id);
    unknown_ = UnknownToken::of(tokenizer);
    lexicon_ = Lexicon(tokenizer);
  }
}

Model MeasuredModel::load(const std::filesystem::path& dir, bool need_tokenizer,
                          const std::string& dtype, int threads) {
  ForwardLoadOptions options;
  options.options.dtype = dtype;
  options.options.threads = threads;
  options.truncate_hint = "";  // reordering a cut sentence would measure something else
  options.require_tokenizer = need_tokenizer;
  options.tokenizer_hint = " (without a tokenizer, give sentences as --ids 1,2,3)";
  return load_for_forward(dir.string(), options);
}

Encoding MeasuredModel::encode(const Sentence& sentence) const {
  Encoding encoding;
  if (sentence.ids) {
    for (int32_t id : *sentence.ids) {
      const bool special = template_ids_.count(id) > 0;
      encoding.append(std::to_string(id), id, 0,
                      special ? TokenSource::kSpecial : TokenSource::kFirst, {});
    }
  } else {
    try {
      encoding = Tokenizer::of(model_).encode(sentence.text);
    } catch (const Error& e) {  // text that is not UTF-8
      if (e.kind() != Error::Kind::kBadInput) throw;
      throw std::invalid_argument(describe(sentence) + ": " + e.what());
    }
  }
  check(encoding, describe(sentence));
  return encoding;
}

std::vector<std::string> MeasuredModel::unknown_sources(const Encoding& encoding,
                                                        const std::string& text) const {
  std::vector<std::string> sources;
  for (size_t t : unknown_positions(encoding, unknown_)) {
    std::string source = token_source(encoding, t, text);
    sources.push_back(source.empty() ? unknown_.piece : std::move(source));  // --ids: no text
  }
  return sources;
}

std::vector<ForwardOutput> MeasuredModel::forward(const std::vector<const Encoding*>& batch,
                                                  bool attention) {
  std::vector<Encoding> encodings;
  for (const Encoding* encoding : batch) encodings.push_back(*encoding);
  ForwardRequest request;
  request.output_hidden_states = true;
  request.output_attentions = attention;
  return tinyenc::forward(model_, encodings, request);
}

void reorder_tokens(const MeasuredModel& model, const PerturbationSpec& spec,
                    Experiment& experiment, const std::string& what) {
  const Encoding& original = experiment.encoding;
  const std::vector<size_t> movable = movable_tokens(original);
  std::vector<std::string> keys;
  for (size_t t : movable) keys.push_back(std::to_string(original.ids[t]));
  for (Reordering& reordering : reorderings(spec, keys, Unit::kToken, what)) {
    Variant variant;
    variant.name = std::move(reordering.name);
    variant.order = std::move(reordering.order);
    std::vector<size_t> alignment;
    variant.encoding = permute_tokens(original, movable, variant.order, alignment);
    variant.alignment = std::move(alignment);
    variant.offsets_in_original = true;
    if (experiment.sentence.ids) {
      std::vector<int> ids(variant.encoding.ids.begin(), variant.encoding.ids.end());
      variant.text = join_numbers(ids, ",");
    } else {
      // Unknown tokens as ⟨unk:狗⟩: their pieces alone would pass for tokens the model knows.
      const Encoding& encoding = variant.encoding;
      variant.text =
          join_tokens(marked_tokens(encoding, unknown_positions(encoding, model.unknown()),
                                    experiment.sentence.text),
                      movable);
    }
    model.check(variant.encoding, what + " reordered (" + variant.name + ")");
    experiment.variants.push_back(std::move(variant));
  }
}

void reorder_text(const MeasuredModel& model, const PerturbationSpec& spec, Unit unit,
                  Experiment& experiment, const std::string& what) {
  const TextUnits split = split_units(experiment.sentence.text, unit, &model.lexicon());
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
    variant.alignment = align_reordered(experiment.encoding, unit_spans, variant.encoding,
                                        slot_spans, variant.order);
    experiment.variants.push_back(std::move(variant));
  }
}

bool differ_only_in_unknown(const Encoding& a, const Encoding& b, const UnknownToken& unknown) {
  if (!unknown.id) return false;
  std::vector<int32_t> known_a, known_b;
  size_t unknown_tokens = 0;
  for (const Encoding* encoding : {&a, &b}) {
    std::vector<int32_t>& known = encoding == &a ? known_a : known_b;
    for (int32_t id : encoding->ids) {
      if (id == *unknown.id) {
        ++unknown_tokens;
      } else {
        known.push_back(id);
      }
    }
  }
  return unknown_tokens > 0 && known_a == known_b;
}

LogitChange compare_logits(const std::vector<float>& a, const std::vector<float>& b) {
  const auto argmax = [](const std::vector<float>& values) -> int64_t {
    if (values.empty()) return -1;
    return std::max_element(values.begin(), values.end()) - values.begin();
  };
  LogitChange change;
  for (size_t i = 0; i < a.size(); ++i) {
    change.max_abs_delta = std::max(change.max_abs_delta, std::abs(double(a[i]) - b[i]));
  }
  change.label_a = argmax(a);
  change.label_b = argmax(b);
  return change;
}

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

std::vector<Result> measure_experiment(MeasuredModel& model, const Experiment& experiment) {
  std::vector<Result> results;
  const std::vector<ForwardOutput> original_output = model.forward({&experiment.encoding}, false);
  const size_t d = static_cast<size_t>(model.dimension());
  const SequenceView original{&original_output[0], experiment.encoding.size(), d};
  for (size_t begin = 0; begin < experiment.variants.size(); begin += kBatch) {
    const size_t end = std::min(experiment.variants.size(), begin + kBatch);
    std::vector<const Encoding*> batch;
    for (size_t v = begin; v < end; ++v) batch.push_back(&experiment.variants[v].encoding);
    const std::vector<ForwardOutput> output = model.forward(batch, false);
    for (size_t v = begin; v < end; ++v) {
      const Variant& variant = experiment.variants[v];
      Result result =
          measure(original, {&output[v - begin], variant.encoding.size(), d}, variant.alignment);
      result.text = experiment.sentence.text;
      result.perturbation = variant.name;
      result.perturbed_text = variant.text;
      result.order = variant.order;
      result.unknown = model.unknown_sources(experiment.encoding, experiment.sentence.text);
      result.perturbed_unknown = model.unknown_sources(
          variant.encoding, variant.offsets_in_original ? experiment.sentence.text : variant.text);
      result.unknown_only =
          differ_only_in_unknown(experiment.encoding, variant.encoding, model.unknown());
      results.push_back(std::move(result));
    }
  }
  return results;
}

}  // namespace tinyenc::cli::order
