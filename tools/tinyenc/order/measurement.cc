#include "tools/tinyenc/order/measurement.h"

#include <tinyenc/text.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <utility>

#include "models/public_tokenizer_impl.h"

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

Result measure(const SequenceView& original, const SequenceView& reordered,
               const std::optional<std::vector<size_t>>& alignment) {
  Result result;
  const int64_t d = original.output->d_model;
  const std::vector<float> a = original.pooled(), b = reordered.pooled();
  result.cosine_distance = cosine_distance(a.data(), b.data(), d);
  const std::vector<float> logits_a = original.logits(), logits_b = reordered.logits();
  if (!logits_a.empty()) {
    const LogitChange change = compare_logits(logits_a, logits_b);
    result.max_abs_logit_delta = change.max_abs_delta;
    result.label = change.label_a;
    result.perturbed_label = change.label_b;
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

}  // namespace

std::string describe(const Sentence& sentence) {
  if (sentence.ids || find_invalid_utf8(sentence.text)) return sentence.origin;
  return sentence.origin + " " + in_quotes(sentence.text);
}

MeasuredModel::MeasuredModel(const std::filesystem::path& dir, bool need_tokenizer,
                             const std::string& dtype)
    : pipeline_(dir, pipeline_options(need_tokenizer, dtype)) {
  // --ids only: a tokenizer, when the folder has one that loads, still says which ids are
  // its template's tokens (<s> </s>, [CLS] [SEP]), and those stay in place.
  if (pipeline_.has_tokenizer()) {
    const SubwordTokenizer& tokenizer = pipeline_.tokenizer();
    for (const TemplateItem& item : tokenizer.special_template().single) {
      if (item.kind == TemplateItem::Kind::kSpecialToken) template_ids_.insert(item.id);
    }
    const Tokenizer vocabulary = TokenizerAccess::borrowing(tokenizer);
    unknown_ = UnknownToken::of(vocabulary);
    lexicon_ = Lexicon(vocabulary);
  }
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
      encoding = pipeline_.tokenize(sentence.text);
    } catch (const std::invalid_argument& e) {  // text that is not UTF-8
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

EncoderOutput MeasuredModel::forward(const std::vector<const Encoding*>& batch, bool attention) {
  ForwardOptions options;
  options.layer_hidden_states = true;
  options.attention_probabilities = attention;
  try {
    return pipeline_.forward(batch, options);
  } catch (const NonFiniteOutputError& e) {
    throw std::invalid_argument(dir().string() + ": " + e.what());
  }
}

PipelineOptions MeasuredModel::pipeline_options(bool need_tokenizer, const std::string& dtype) {
  PipelineOptions options;
  options.dtype = dtype;
  options.truncate_hint = "";  // reordering a cut sentence would measure something else
  options.require_tokenizer = need_tokenizer;
  options.tokenizer_hint = " (without a tokenizer, give sentences as --ids 1,2,3)";
  return options;
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
