#include "order/report.h"

#include <tinyenc/text.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "order/table_text.h"
#include "output.h"
#include "plot/text_metrics.h"

namespace tinyenc::cli::order {
namespace {

// Noise-level distances (1e-15 for an order-blind model) show as such, not as 0.0000.
std::string number(double value) { return distance_text(value, 1e-4); }

std::string label_of(const Report& report, size_t model, int64_t label) {
  if (label < 0) return "-";
  const std::vector<std::string>& names = report.labels[model];
  return label < static_cast<int64_t>(names.size()) ? names[static_cast<size_t>(label)]
                                                    : "LABEL_" + std::to_string(label);
}

std::string join_words(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& word : words) {
    if (!out.empty()) out.push_back(' ');
    out.append(word);
  }
  return out;
}

std::string quoted_words(const std::vector<std::string>& words, const std::string& piece) {
  std::string out;
  for (const std::string& word : words) {
    out.push_back(' ');
    out.append(in_quotes(word.empty() ? piece : word));
  }
  return out;
}

// One line under a sentence's heading naming what the vocabulary does not know, if anything.
std::string unknown_line(const Report& report,
                         const std::vector<std::vector<const Result*>>& by_model) {
  for (size_t m = 0; m < by_model.size(); ++m) {
    for (const Result* result : by_model[m]) {
      if (result->unknown.empty() && result->perturbed_unknown.empty()) continue;
      const std::string& piece = report.unknown_piece[m];
      std::string line = "unknown to the vocabulary (";
      line.append(piece);
      line.append("):");
      if (report.compare) {
        if (!result->unknown.empty())
          line.append(" A").append(quoted_words(result->unknown, piece));
        if (!result->unknown.empty() && !result->perturbed_unknown.empty()) line.append(";");
        if (!result->perturbed_unknown.empty()) {
          line.append(" B").append(quoted_words(result->perturbed_unknown, piece));
        }
      } else {
        line.append(quoted_words(result->unknown, piece));
      }
      line.push_back('\n');
      return line;
    }
  }
  return "";
}

const char* const kUnknownOnlyNote =
    "B differs from A only in tokens the vocabulary does not know: the known tokens are the "
    "same, in the same order, and the words that moved are unknown to the model, so whether its "
    "answer moves or not says nothing about how it reads word order";

}  // namespace

std::string table(const Report& report, size_t sentence_count) {
  std::string out;
  bool any_mean_pooled = false, any_unknown_only = false;
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
    out += unknown_line(report, by_model);
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
      int flips = 0, unknown_only = 0;
      bool aligned = true;
      std::vector<double> layers(results[0]->layer_distances.size(), 0.0);
      for (const Result* result : results) {
        sum += result->cosine_distance;
        largest = std::max(largest, result->cosine_distance);
        if (result->max_abs_logit_delta) {
          logit_delta = std::max(logit_delta.value_or(0.0), *result->max_abs_logit_delta);
        }
        if (result->unknown_only) {
          ++unknown_only;
        } else {
          flips += result->label != result->perturbed_label;
        }
        aligned = aligned && result->token_aligned;
        for (size_t l = 0; l < layers.size(); ++l) layers[l] += result->layer_distances[l];
      }
      const size_t n = results.size();
      row.push_back(label_of(report, m, results[0]->label));
      any_unknown_only = any_unknown_only || unknown_only > 0;
      if (single) {
        std::string label_b = label_of(report, m, results[0]->perturbed_label);
        if (results[0]->label >= 0 && flips) label_b += " (flip)";
        if (unknown_only) label_b.append(" (no verdict \u2020)");
        row.push_back(label_b);
        row.push_back(number(sum));
      } else {
        std::string flip_count = "-";
        if (results[0]->label >= 0) {
          flip_count = std::to_string(flips) + "/" + std::to_string(n - unknown_only);
        }
        if (unknown_only) {
          flip_count.append(" (")
              .append(std::to_string(unknown_only))
              .append(" no verdict \u2020)");
        }
        row.push_back(flip_count);
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
        "* the reordered text is not a rearrangement of the original's tokens, so no token can be\n"
        "followed to its new place: these layer distances compare each layer's mean hidden state\n"
        "instead.\n";
  }
  if (any_unknown_only) {
    out.append("\u2020 ").append(kUnknownOnlyNote).append(" (flips count the others only).\n");
  }
  return out;
}

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
    item["label_flipped"] =
        labels && !result.unknown_only ? Json(result.label != result.perturbed_label) : Json();
    item["layer_distances"] = Json::array();
    for (double value : result.layer_distances) item["layer_distances"].push_back(rounded(value));
    item["layer_alignment"] = result.token_aligned ? "token" : "mean";
    item["unknown"] = result.unknown;
    item["perturbed_unknown"] = result.perturbed_unknown;
    item["unknown_only"] = result.unknown_only;
    if (result.unknown_only) item["note"] = kUnknownOnlyNote;
    // Bytes that are not UTF-8 (only a folder name can still hold them here) print as U+FFFD.
    out += (r ? ",\n  " : "\n  ") + item.dump(-1, ' ', false, Json::error_handler_t::replace);
  }
  return out + "\n]}\n";
}

std::string to_csv(const Report& report) {
  size_t layers = 0;
  for (const Result& result : report.results) {
    layers = std::max(layers, result.layer_distances.size());
  }
  std::string out =
      "model,pe,text,perturbation,perturbed_text,cosine_distance,max_abs_logit_delta,label,"
      "perturbed_label,label_flipped,layer_alignment,unknown_only,unknown,perturbed_unknown";
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
        shortest_float(result.cosine_distance),
        result.max_abs_logit_delta ? shortest_float(*result.max_abs_logit_delta) : "",
        labels ? label_of(report, result.model, result.label) : "",
        labels ? label_of(report, result.model, result.perturbed_label) : "",
        labels && !result.unknown_only ? (result.label != result.perturbed_label ? "true" : "false")
                                       : "",
        result.token_aligned ? "token" : "mean",
        result.unknown_only ? "true" : "false",
        join_words(result.unknown),
        join_words(result.perturbed_unknown)};
    for (size_t l = 0; l < layers; ++l) {
      fields.push_back(l < result.layer_distances.size() ? shortest_float(result.layer_distances[l])
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

}  // namespace tinyenc::cli::order
