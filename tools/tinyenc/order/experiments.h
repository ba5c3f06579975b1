// The experiments of `tinyenc order` that separate absolute from relative position, beside the
// reorderings: --extrapolate FILE (accuracy against sentence length, order/extrapolation.h) and
// --attention-distance (how far each head looks, order/attention_distance.h). They share order's
// models, sentences, output formats and --plot-dir; this file registers their options and runs
// the one asked for.
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "options.h"
#include "order/measurement.h"
#include "output.h"

namespace tinyenc::cli::order {

struct ExperimentOptions {
  std::string extrapolate;  // --extrapolate FILE: labelled sentences, one JSON object a line
  int bucket = 0;           // --bucket N: tokens per length bucket; 0 chooses
  bool attention_distance = false;

  bool any() const { return !extrapolate.empty() || attention_distance; }
};

// Registers --extrapolate, --bucket and --attention-distance on `command`, which must already
// hold order's reordering options (they exclude those).
void add_experiment_options(CLI::App& command, ExperimentOptions& options);

struct ExperimentInputs {
  std::vector<std::filesystem::path> models;
  std::vector<Sentence> sentences;  // --attention-distance's; none with --extrapolate
  OutputFormat format = OutputFormat::kText;
  std::string plot_dir;  // "" draws nothing
  std::string dtype;
  int threads = 0;  // as Options::threads takes it
};

// Runs the experiment `options` asks for and writes its results to `sink` (not committed).
void run_experiment(const ExperimentOptions& options, const ExperimentInputs& inputs,
                    OutputSink& sink);

}  // namespace tinyenc::cli::order
