// `tinyenc order --shift K1,K2,...`: the experiment that separates absolute from relative
// position encodings. Every position id of a sentence is moved by K (EncoderInput::
// position_offset), as if the sentence began K tokens later, and the outputs are compared with
// those at offset 0. Relative encodings see only i - j: RoPE's outputs move by float rounding of
// its angles, ALiBi's and T5's not at all, and no position encoding (none) has nothing to move.
// Absolute encodings (sinusoidal, learned) add other rows and answer differently; a learned table
// has no rows past its end, so those offsets are "cannot", never a number.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "options.h"
#include "order/measurement.h"
#include "output.h"

namespace tinyenc::cli::order {

// One sentence at one offset, against the same sentence at offset 0.
struct ShiftResult {
  size_t model = 0, sentence = 0;
  int64_t offset = 0;
  size_t tokens = 0;
  // Set when the model cannot number the shifted positions (a learned table too short): the
  // engine's message, and no distance.
  std::optional<std::string> cannot;
  double cosine_distance = 0;                 // 1 - cos of the pooled outputs
  std::optional<double> max_abs_logit_delta;  // models with a classification head
  int64_t label = -1, shifted_label = -1;
};

struct ShiftReport {
  std::vector<std::string> model_names, model_paths, model_pe;
  std::vector<std::vector<std::string>> labels;  // [model]: config.json's id2label
  std::vector<std::string> sentences;            // as shown: the text, or the ids
  std::vector<int64_t> offsets;                  // K, in the order given
  std::vector<ShiftResult> results;              // [model][sentence][offset], in that order
};

// "1,2,4" as offsets: each in [1, max_position_offset()], no repeats; throws UsageError naming
// --shift.
std::vector<int64_t> parse_shift_offsets(const std::string& text);

// The sentences (already checked by `model`'s encode) run at offset 0 and at every K, one
// ShiftResult per (sentence, K), with `model_index` filled in.
std::vector<ShiftResult> measure_shift(MeasuredModel& model, size_t model_index,
                                       const std::vector<Sentence>& sentences,
                                       const std::vector<int64_t>& offsets);

// Per model and K over the sentences: the mean and largest cosine distance, the largest
// |Δlogit|, the label flips, and how many sentences could not be shifted that far.
struct ShiftSummary {
  size_t model = 0;
  int64_t offset = 0;
  size_t measured = 0, cannot = 0;
  double mean_cosine_distance = 0, max_cosine_distance = 0;
  std::optional<double> max_abs_logit_delta;
  size_t label_flips = 0;
  std::string reason;  // the first "cannot" message, when any
};
std::vector<ShiftSummary> summarize_shift(const ShiftReport& report);

// Models as rows, K as columns: one table for the cosine distance, one for max |Δlogit|, one for
// label flips.
std::string shift_table(const ShiftReport& report);
// {"experiment": "shift", "offsets": [...], "summary": [...], "results": [...]}; a result that
// cannot be measured has null numbers and its "reason".
std::string shift_json(const ShiftReport& report);
// A row per model, sentence and K.
std::string shift_csv(const ShiftReport& report);

// The whole experiment: every model (`dtype` and `threads` as Options takes them) on every
// sentence at 0 and each K, the report in `format`
// written to `sink` (not committed), and with a `plot_dir`, DIR/shift.svg.
void run_shift_experiment(const std::vector<std::filesystem::path>& models,
                          const std::vector<Sentence>& sentences,
                          const std::vector<int64_t>& offsets, const std::string& dtype,
                          int threads, OutputFormat format, OutputSink& sink,
                          const std::string& plot_dir);

}  // namespace tinyenc::cli::order
