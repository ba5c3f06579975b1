#include "order/experiments.h"

#include <algorithm>
#include <fstream>
#include <iostream>

#include <unistd.h>

#include "command.h"
#include "order/attention_distance.h"
#include "order/extrapolation.h"
#include "order/figures.h"
#include "plot/attention_distance_figure.h"
#include "plot/extrapolation_figure.h"
#include "plot/text_metrics.h"

namespace tinyenc::cli::order {
namespace {

void plot_extrapolation(const ExtrapolationReport& report, const std::filesystem::path& file) {
  plot::ExtrapolationFigure figure;
  figure.subtitle = report.file + ": " + std::to_string(report.sentences) +
                    " sentences in buckets of " + std::to_string(report.bucket_width) +
                    " token(s); no point where a model cannot run the length";
  if (!report.buckets.empty()) {
    figure.x_low = static_cast<double>(report.buckets.front().low);
    figure.x_high = static_cast<double>(report.buckets.back().high);
  }
  for (const ModelExtrapolation& model : report.models) {
    plot::AccuracyCurve curve;
    curve.name = model.name;
    curve.position_encoding = model.position_encoding;
    if (model.max_tokens > 0) curve.limit = static_cast<double>(model.max_tokens);
    if (model.training_max_tokens) curve.trained = static_cast<double>(*model.training_max_tokens);
    for (size_t b = 0; b < report.buckets.size(); ++b) {
      const BucketAccuracy& accuracy = model.buckets[b];
      if (!accuracy.correct || accuracy.sentences == 0) continue;
      const double middle = (report.buckets[b].low + report.buckets[b].high) / 2.0;
      curve.points.push_back({middle, double(*accuracy.correct) / double(accuracy.sentences)});
    }
    figure.curves.push_back(std::move(curve));
  }
  write_file(file, plot::draw_extrapolation_figure(figure));
}

void plot_attention_distance(const std::vector<ModelAttentionDistance>& models, size_t sentences,
                             const std::filesystem::path& file) {
  plot::AttentionDistanceFigure figure;
  figure.subtitle = "mean over every query token of " + std::to_string(sentences) +
                    " sentence(s), special tokens included; one y scale for every panel";
  for (int64_t offset = -kProfileReach; offset <= kProfileReach; ++offset) {
    figure.offsets.push_back(static_cast<int>(offset));
  }
  for (const ModelAttentionDistance& model : models) {
    plot::AttentionDistancePanel panel;
    panel.name = model.name;
    panel.position_encoding = model.position_encoding;
    panel.uniform_profile = model.uniform.by_offset;
    panel.uniform_mean_distance = model.uniform.mean_distance;
    for (int64_t layer = 0; layer < model.layers; ++layer) {
      std::vector<double> profile(model.uniform.by_offset.size(), 0.0);
      double distance = 0;
      for (int64_t head = 0; head < model.heads; ++head) {
        const DistanceStatistics& statistics =
            model.per_head[static_cast<size_t>(layer * model.heads + head)];
        for (size_t k = 0; k < profile.size(); ++k) {
          profile[k] += statistics.by_offset[k] / static_cast<double>(model.heads);
        }
        distance += statistics.mean_distance / static_cast<double>(model.heads);
      }
      panel.layer_profiles.push_back(std::move(profile));
      panel.mean_distances.push_back(distance);
    }
    figure.panels.push_back(std::move(panel));
  }
  write_file(file, plot::draw_attention_distance_figure(figure));
}

}  // namespace

void add_experiment_options(CLI::App& command, ExperimentOptions& options) {
  auto* extrapolate =
      command
          .add_option("--extrapolate", options.extrapolate,
                      "Accuracy against sentence length: FILE holds one JSON object a line, "
                      "{\"text\": ..., \"label\": <a name of id2label>, \"tokens\": N (optional)}")
          ->type_name("FILE");
  auto* bucket = command
                     .add_option("--bucket", options.bucket,
                                 "--extrapolate: tokens per length bucket (default: exact lengths, "
                                 "or the smallest power of two giving at most 12 buckets)")
                     ->type_name("N");
  bucket->needs(extrapolate);
  auto* distance = command.add_flag(
      "--attention-distance", options.attention_distance,
      "How far each layer's heads look on the sentences: mean |i-j| weighted by attention, share "
      "on the same token, +-1, +-2");
  distance->excludes(extrapolate);
  for (const char* name : {"--compare", "--perturbation", "--unit", "--positions", "--shuffles",
                           "--seed", "--shift", "--position-offset"}) {
    CLI::Option* reordering = command.get_option(name);
    extrapolate->excludes(reordering);
    distance->excludes(reordering);
  }
  extrapolate->excludes(command.get_option("--ids"));
  extrapolate->excludes(command.get_option("--input"));
}

void run_experiment(const ExperimentOptions& options, const ExperimentInputs& inputs,
                    OutputSink& sink) {
  const std::filesystem::path dir(inputs.plot_dir);
  if (!options.extrapolate.empty()) {
    if (!inputs.sentences.empty()) {
      throw UsageError("--extrapolate reads its sentences from " + options.extrapolate +
                       "; give no sentences besides");
    }
    check_range("--bucket", int64_t{options.bucket}, int64_t{0}, int64_t{1} << 20);
    std::vector<LabelledSentence> sentences;
    // Read as run -i reads: a line at most LineReader::kMaxLineBytes, and no device that never
    // ends, since every sentence is read before the first is measured.
    if (options.extrapolate == "-") {
      LineReader in(STDIN_FILENO, "standard input");
      sentences = read_labelled_sentences(in);
    } else {
      LineReader in(options.extrapolate, LineReader::Endless::kRefuse);
      sentences = read_labelled_sentences(in);
    }
    const ExtrapolationReport report =
        measure_extrapolation(inputs.models, sentences, options.extrapolate, options.bucket,
                              inputs.dtype, inputs.threads);
    if (inputs.format == OutputFormat::kJson) {
      sink.write(extrapolation_json(report));
    } else if (inputs.format == OutputFormat::kCsv) {
      sink.write(extrapolation_csv(report));
    } else {
      sink.write(extrapolation_table(report));
    }
    if (!inputs.plot_dir.empty()) plot_extrapolation(report, dir / "extrapolation.svg");
    return;
  }
  const std::vector<ModelAttentionDistance> models =
      measure_attention_distance(inputs.models, inputs.sentences, inputs.dtype, inputs.threads);
  if (inputs.format == OutputFormat::kJson) {
    sink.write(attention_distance_json(models));
  } else if (inputs.format == OutputFormat::kCsv) {
    sink.write(attention_distance_csv(models));
  } else {
    sink.write(attention_distance_table(models));
  }
  if (!inputs.plot_dir.empty()) {
    plot_attention_distance(models, inputs.sentences.size(), dir / "attention_distance.svg");
  }
}

}  // namespace tinyenc::cli::order
