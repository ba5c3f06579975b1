#include "order/shift.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

#include "command.h"
#include "order/figures.h"
#include "order/measurement.h"
#include "order/report.h"
#include "order/table_text.h"
#include "plot/shift_figure.h"
#include "plot/text_metrics.h"

namespace tinyenc::cli::order {
namespace {

// The pooled output of sequence 0 of a one-sequence pass; the mean of the last hidden state for
// models without pooling (as the reordering experiment measures them).
std::vector<float> pooled(const ForwardOutput& output, size_t length, size_t d) {
  if (!output.pooled.empty()) return output.pooled;
  std::vector<float> mean(d, 0.0f);
  for (size_t t = 0; t < length; ++t) {
    for (size_t i = 0; i < d; ++i) mean[i] += output.last_hidden_state[t * d + i];
  }
  for (float& value : mean) value /= static_cast<float>(length);
  return mean;
}

// Rounding-level distances (RoPE's, ~1e-8) show as such, not as 0.0000.
std::string number(double value) { return distance_text(value, 1e-3); }

std::string label_of(const ShiftReport& report, size_t model, int64_t label) {
  const std::vector<std::string>& names = report.labels[model];
  return label < static_cast<int64_t>(names.size()) ? names[static_cast<size_t>(label)]
                                                    : "LABEL_" + std::to_string(label);
}

}  // namespace

std::vector<int64_t> parse_shift_offsets(const std::string& text) {
  std::vector<int64_t> offsets;
  std::set<int64_t> seen;
  for (int32_t value : parse_integer_list(text, "--shift", "offset")) {
    if (value < 1 || value > max_position_offset()) {
      throw UsageError("--shift: offset " + std::to_string(value) + " is outside [1, " +
                       std::to_string(max_position_offset()) + "] (0 is the baseline, always run)");
    }
    if (!seen.insert(value).second) {
      throw UsageError("--shift: offset " + std::to_string(value) + " is given twice");
    }
    offsets.push_back(value);
  }
  if (offsets.empty()) throw UsageError("--shift: expected offsets K1,K2,..., e.g. 1,4,16,64");
  return offsets;
}

std::vector<ShiftResult> measure_shift(MeasuredModel& model, size_t model_index,
                                       const std::vector<Sentence>& sentences,
                                       const std::vector<int64_t>& offsets) {
  // Only a learned table runs out of positions; any other refusal is not this experiment's to
  // turn into a "cannot".
  const bool learned = model.position_encoding() == "learned";
  std::vector<ShiftResult> results;
  for (size_t s = 0; s < sentences.size(); ++s) {
    model.set_position_offset(0);
    const Encoding encoding = model.encode(sentences[s]);
    const size_t d = static_cast<size_t>(model.dimension());
    const ForwardOutput base = model.forward({&encoding}, false)[0];
    const std::vector<float> base_pooled = pooled(base, encoding.size(), d);
    for (int64_t offset : offsets) {
      ShiftResult result;
      result.model = model_index;
      result.sentence = s;
      result.offset = offset;
      result.tokens = encoding.size();
      model.set_position_offset(offset);
      ForwardOutput shifted;
      try {
        shifted = model.forward({&encoding}, false)[0];
      } catch (const Error& e) {
        if (!learned || e.kind() != Error::Kind::kBadInput) throw;
        result.cannot = e.what();
        results.push_back(std::move(result));
        continue;
      }
      const std::vector<float> shifted_pooled = pooled(shifted, encoding.size(), d);
      result.cosine_distance =
          cosine_distance(base_pooled.data(), shifted_pooled.data(), static_cast<int64_t>(d));
      if (!base.logits.empty()) {
        const LogitChange change = compare_logits(base.logits, shifted.logits);
        result.max_abs_logit_delta = change.max_abs_delta;
        result.label = change.label_a;
        result.shifted_label = change.label_b;
      }
      results.push_back(std::move(result));
    }
  }
  model.set_position_offset(0);
  return results;
}

std::vector<ShiftSummary> summarize_shift(const ShiftReport& report) {
  std::vector<ShiftSummary> summaries;
  for (size_t m = 0; m < report.model_names.size(); ++m) {
    for (int64_t offset : report.offsets) {
      ShiftSummary summary;
      summary.model = m;
      summary.offset = offset;
      double sum = 0;
      for (const ShiftResult& result : report.results) {
        if (result.model != m || result.offset != offset) continue;
        if (result.cannot) {
          if (summary.cannot++ == 0) summary.reason = *result.cannot;
          continue;
        }
        ++summary.measured;
        sum += result.cosine_distance;
        summary.max_cosine_distance = std::max(summary.max_cosine_distance, result.cosine_distance);
        if (result.max_abs_logit_delta) {
          summary.max_abs_logit_delta =
              std::max(summary.max_abs_logit_delta.value_or(0.0), *result.max_abs_logit_delta);
        }
        summary.label_flips += result.label != result.shifted_label;
      }
      if (summary.measured > 0) summary.mean_cosine_distance = sum / double(summary.measured);
      summaries.push_back(std::move(summary));
    }
  }
  return summaries;
}

std::string shift_table(const ShiftReport& report) {
  const std::vector<ShiftSummary> summaries = summarize_shift(report);
  const size_t sentences = report.sentences.size();
  std::string out =
      "Shift invariance: every position id + K, as if each sentence began K tokens later; "
      "outputs\nagainst K = 0, over " +
      std::to_string(sentences) + " sentence(s):";
  for (const std::string& sentence : report.sentences) out += "\n  " + sentence;
  out += "\n\n";

  bool any_partial = false, any_cannot = false;
  std::string first_reason;
  // One table per measure: models as rows, K as columns.
  const auto section = [&](const std::string& title, auto&& cell) {
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> header = {"model", "pe"};
    for (int64_t offset : report.offsets) header.push_back("K=" + std::to_string(offset));
    rows.push_back(header);
    for (size_t m = 0; m < report.model_names.size(); ++m) {
      std::vector<std::string> row = {report.model_names[m], report.model_pe[m]};
      for (const ShiftSummary& summary : summaries) {
        if (summary.model != m) continue;
        if (summary.measured == 0) {
          row.push_back("cannot");
          any_cannot = true;
          if (first_reason.empty()) first_reason = summary.reason;
          continue;
        }
        std::string text = cell(summary);
        if (summary.cannot > 0) {
          text += " (" + std::to_string(summary.measured) + "/" +
                  std::to_string(summary.measured + summary.cannot) + ")";
          any_partial = true;
          if (first_reason.empty()) first_reason = summary.reason;
        }
        row.push_back(text);
      }
      rows.push_back(row);
    }
    out += title + "\n" + render_table(rows) + "\n";
  };
  section("cosine distance of the pooled outputs (1 - cos), mean over the sentences",
          [](const ShiftSummary& s) { return number(s.mean_cosine_distance); });
  const bool any_logits = std::any_of(summaries.begin(), summaries.end(), [](const auto& s) {
    return s.max_abs_logit_delta.has_value();
  });
  if (any_logits) {
    section("max |\u0394logit|, the largest over the sentences", [](const ShiftSummary& s) {
      return s.max_abs_logit_delta ? number(*s.max_abs_logit_delta) : std::string("-");
    });
    section("label flips: sentences whose label at K differs from K = 0",
            [&](const ShiftSummary& s) {
              if (!s.max_abs_logit_delta) return std::string("-");
              return std::to_string(s.label_flips) + "/" + std::to_string(s.measured);
            });
  }
  out +=
      "Relative kinds (rope, alibi, relative) depend on i - j only: alibi and relative give the "
      "same\noutputs bit for bit (0), rope within float rounding of its angles; none has no "
      "positions\nto move (0). Absolute kinds (sinusoidal, learned) add other rows and move.\n";
  if (any_cannot) {
    out += "cannot: the learned table has no row for these positions: " + first_reason + "\n";
  }
  if (any_partial) {
    out +=
        "(n/N): only n of the N sentences fit the learned table at this K; the value is "
        "theirs.\n";
    if (!any_cannot) out += "The others: " + first_reason + "\n";
  }
  return out;
}

std::string shift_json(const ShiftReport& report) {
  using Json = nlohmann::ordered_json;
  const auto rounded = [](double value) { return json_float(static_cast<float>(value)); };
  std::string out = "{\"experiment\": \"shift\", \"offsets\": " + Json(report.offsets).dump() +
                    ",\n\"summary\": [";
  const std::vector<ShiftSummary> summaries = summarize_shift(report);
  for (size_t i = 0; i < summaries.size(); ++i) {
    const ShiftSummary& s = summaries[i];
    const bool measured = s.measured > 0;
    Json item;
    item["model"] = report.model_paths[s.model];
    item["pe"] = report.model_pe[s.model];
    item["offset"] = s.offset;
    item["sentences"] = s.measured;
    item["cannot"] = s.cannot;
    item["mean_cosine_distance"] = measured ? Json(rounded(s.mean_cosine_distance)) : Json();
    item["max_cosine_distance"] = measured ? Json(rounded(s.max_cosine_distance)) : Json();
    item["max_abs_logit_delta"] =
        s.max_abs_logit_delta ? Json(rounded(*s.max_abs_logit_delta)) : Json();
    item["label_flips"] = measured && s.max_abs_logit_delta ? Json(s.label_flips) : Json();
    item["reason"] = s.cannot > 0 ? Json(s.reason) : Json();
    out += (i ? ",\n  " : "\n  ") + item.dump(-1, ' ', false, Json::error_handler_t::replace);
  }
  out += "\n],\n\"results\": [";
  for (size_t r = 0; r < report.results.size(); ++r) {
    const ShiftResult& result = report.results[r];
    const bool measured = !result.cannot;
    const bool labels = measured && result.label >= 0;
    Json item;
    item["model"] = report.model_paths[result.model];
    item["pe"] = report.model_pe[result.model];
    item["text"] = report.sentences[result.sentence];
    item["tokens"] = result.tokens;
    item["offset"] = result.offset;
    item["cosine_distance"] = measured ? Json(rounded(result.cosine_distance)) : Json();
    item["max_abs_logit_delta"] =
        result.max_abs_logit_delta ? Json(rounded(*result.max_abs_logit_delta)) : Json();
    item["label"] = labels ? Json(label_of(report, result.model, result.label)) : Json();
    item["shifted_label"] =
        labels ? Json(label_of(report, result.model, result.shifted_label)) : Json();
    item["label_flipped"] = labels ? Json(result.label != result.shifted_label) : Json();
    item["reason"] = result.cannot ? Json(*result.cannot) : Json();
    out += (r ? ",\n  " : "\n  ") + item.dump(-1, ' ', false, Json::error_handler_t::replace);
  }
  return out + "\n]}\n";
}

std::string shift_csv(const ShiftReport& report) {
  std::string out =
      "model,pe,text,tokens,offset,cosine_distance,max_abs_logit_delta,label,shifted_label,"
      "label_flipped,reason\n";
  for (const ShiftResult& result : report.results) {
    const bool measured = !result.cannot;
    const bool labels = measured && result.label >= 0;
    const std::vector<std::string> fields = {
        report.model_paths[result.model],
        report.model_pe[result.model],
        report.sentences[result.sentence],
        std::to_string(result.tokens),
        std::to_string(result.offset),
        measured ? shortest_float(result.cosine_distance) : "",
        result.max_abs_logit_delta ? shortest_float(*result.max_abs_logit_delta) : "",
        labels ? label_of(report, result.model, result.label) : "",
        labels ? label_of(report, result.model, result.shifted_label) : "",
        labels ? (result.label != result.shifted_label ? "true" : "false") : "",
        result.cannot.value_or("")};
    for (size_t f = 0; f < fields.size(); ++f) {
      if (f) out += ',';
      out += csv_field(fields[f]);
    }
    out += "\n";
  }
  return out;
}

void run_shift_experiment(const std::vector<std::filesystem::path>& models,
                          const std::vector<Sentence>& sentences,
                          const std::vector<int64_t>& offsets, const std::string& dtype,
                          int threads, OutputFormat format, OutputSink& sink,
                          const std::string& plot_dir) {
  ShiftReport report;
  report.model_names = model_names(models);
  report.offsets = offsets;
  for (const Sentence& sentence : sentences) report.sentences.push_back(sentence.text);
  const bool need_tokenizer =
      std::any_of(sentences.begin(), sentences.end(), [](const Sentence& s) { return !s.ids; });
  for (size_t m = 0; m < models.size(); ++m) {
    MeasuredModel model(models[m], need_tokenizer, dtype, threads);
    report.model_paths.push_back(models[m].string());
    report.model_pe.push_back(model.position_encoding());
    report.labels.push_back(model.labels());
    for (ShiftResult& result : measure_shift(model, m, sentences, offsets)) {
      report.results.push_back(std::move(result));
    }
  }
  if (format == OutputFormat::kJson) {
    sink.write(shift_json(report));
  } else if (format == OutputFormat::kCsv) {
    sink.write(shift_csv(report));
  } else {
    sink.write(shift_table(report));
  }
  if (plot_dir.empty()) return;
  // Offsets ascending along the x axis, whatever order they were given in.
  std::vector<int64_t> ascending = offsets;
  std::sort(ascending.begin(), ascending.end());
  std::vector<plot::ShiftCurve> curves;
  const std::vector<ShiftSummary> summaries = summarize_shift(report);
  for (size_t m = 0; m < models.size(); ++m) {
    plot::ShiftCurve curve;
    curve.name = report.model_names[m];
    curve.position_encoding = report.model_pe[m];
    for (int64_t offset : ascending) {
      for (const ShiftSummary& summary : summaries) {
        if (summary.model != m || summary.offset != offset) continue;
        curve.offsets.push_back(static_cast<double>(offset));
        // A K that only some sentences fit is not drawn: its mean would be over fewer sentences
        // than its neighbours'.
        curve.distances.push_back(summary.cannot == 0 ? std::optional(summary.mean_cosine_distance)
                                                      : std::nullopt);
      }
    }
    curves.push_back(std::move(curve));
  }
  const std::string subtitle =
      "cosine distance (1 \u2212 cos) of the pooled outputs at K and at "
      "K = 0, mean over " +
      std::to_string(sentences.size()) + " sentence(s)";
  write_file(std::filesystem::path(plot_dir) / "shift.svg",
             plot::draw_shift_figure(curves, subtitle));
}

}  // namespace tinyenc::cli::order
