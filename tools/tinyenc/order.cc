// `tinyenc order`: the seed article's experiment, measured. Self-attention alone is blind to
// word order ("我打你" and "你打我" give the same attention scores, only permuted); a position
// encoding is what lets a model tell the two apart. This command reorders sentences (swap two
// units, reverse, shuffle, every permutation), runs each model on the original and on every
// reordering, and reports how far the output moved: the cosine distance of the pooled
// embeddings, the largest logit change, whether the label flipped, and the same distance for the
// hidden states layer by layer, where the first layer with a distance above zero is where order
// information enters the model. `--plot-dir DIR` draws it.
//
// order/perturbation.h makes the reorderings, order/measurement.h runs and measures them,
// order/report.h and order/figures.h show the results; this file reads the options and inputs.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <tinyenc/forward.h>

#include "command.h"
#include "line_reader.h"
#include "options.h"
#include "order/experiments.h"
#include "order/figures.h"
#include "order/measurement.h"
#include "order/perturbation.h"
#include "order/report.h"
#include "order/shift.h"
#include "output.h"
#include "plot/sensitivity_figures.h"
#include "unknown_tokens.h"

namespace tinyenc::cli {
namespace order {
namespace {

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
  OutputOptions output;
  std::string plot_dir;
  std::string plot_file;  // --plot, which names a file elsewhere: refused with a hint
  int threads = 0;
  std::string dtype;
  int64_t position_offset = 0;    // --position-offset K: every input of the run shifted
  std::string shift;              // --shift K1,K2,...: the shift-invariance experiment
  ExperimentOptions experiments;  // --extrapolate, --attention-distance
};

// The lines of `in` as sentences, named "<name> line N".
void read_lines(LineReader& in, std::vector<Sentence>& sentences) {
  const std::string& name = in.name();
  for (std::string line; in.next(line) == LineReader::Status::kLine;) {
    const size_t number = in.line_number();
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
  // Read as run -i reads: a line at most LineReader::kMaxLineBytes, no device that never ends.
  if (options.input_file == "-") {
    LineReader in(STDIN_FILENO, "standard input");
    read_lines(in, inputs.sentences);
  } else if (!options.input_file.empty()) {
    LineReader in(options.input_file, LineReader::Endless::kRefuse);
    read_lines(in, inputs.sentences);
  }
  if (!options.ids.empty() && !inputs.sentences.empty()) {
    throw UsageError("--ids replaces the sentences: give one or the other");
  }
  for (const std::string& ids : options.ids) {
    inputs.sentences.push_back({ids, parse_integer_list(ids, "--ids"), "--ids " + ids});
  }
  if (inputs.sentences.empty() && options.experiments.extrapolate.empty()) {
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

// ---------------------------------------------------------------------------------------------

int run(const OrderOptions& options) {
  if (options.shuffles <= 0 || options.shuffles > 100000) {
    throw UsageError("--shuffles must be in [1, 100000], got " + std::to_string(options.shuffles));
  }
  const int threads = checked_threads(options.threads);
  const std::string dtype = checked_dtype(options.dtype);
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
    const std::vector<int32_t> pair = parse_integer_list(options.positions, "--positions");
    if (pair.size() != 2 || pair[0] < 0 || pair[1] < 0 || pair[0] == pair[1]) {
      throw UsageError("--positions: expected two different positions I,J counting from 0, got '" +
                       options.positions + "'");
    }
    spec.positions = std::make_pair(std::min(pair[0], pair[1]), std::max(pair[0], pair[1]));
  }
  if (!options.plot_file.empty()) {
    throw UsageError("--plot " + options.plot_file +
                     ": order draws several figures into a folder; use --plot-dir DIR");
  }
  check_position_offset(options.position_offset);
  const std::vector<int64_t> shift_offsets =
      options.shift.empty() ? std::vector<int64_t>() : parse_shift_offsets(options.shift);
  const OutputFormat format = options.output.format();
  // Fail on a bad output path before the work, not after it.
  OutputSink sink(options.output.path);
  if (!options.plot_dir.empty()) {
    std::error_code error;
    std::filesystem::create_directories(options.plot_dir, error);
    if (error || !std::filesystem::is_directory(options.plot_dir, error)) {
      throw UsageError(options.plot_dir + ": cannot create the folder for the pictures");
    }
  }
  if (!shift_offsets.empty()) {
    run_shift_experiment(inputs.models, inputs.sentences, shift_offsets, dtype, threads, format,
                         sink, options.plot_dir);
    sink.commit();
    return 0;
  }
  if (options.experiments.any()) {
    run_experiment(options.experiments,
                   {inputs.models, inputs.sentences, format, options.plot_dir, dtype, threads},
                   sink);
    sink.commit();
    return 0;
  }

  Report report;
  report.compare = options.compare;
  report.unit = unit;
  report.perturbation = options.perturbation;
  report.model_names = model_names(inputs.models);
  const bool need_tokenizer = std::any_of(inputs.sentences.begin(), inputs.sentences.end(),
                                          [](const Sentence& s) { return !s.ids; });
  std::vector<plot::ModelSensitivity> sensitivities;
  // One warning line per distinct message: the shipped models share a vocabulary.
  std::vector<std::pair<std::string, std::string>> unknown_warnings;  // message, models
  // layers.svg marks the models some of whose reorderings compare mean hidden states.
  std::vector<std::string> layer_notes, marked_names;
  for (size_t m = 0; m < inputs.models.size(); ++m) {
    MeasuredModel model(inputs.models[m], need_tokenizer, dtype, threads);
    model.set_position_offset(options.position_offset);
    report.model_paths.push_back(inputs.models[m].string());
    report.model_pe.push_back(model.position_encoding());
    report.labels.push_back(model.labels());
    report.unknown_piece.push_back(model.unknown().piece);
    UnknownTally unknown_tally;

    const size_t first_result = report.results.size();
    for (size_t s = 0; s < inputs.sentences.size(); s += options.compare ? 2 : 1) {
      const Sentence& sentence = inputs.sentences[s];
      const std::string what = describe(sentence);
      Experiment experiment{sentence, model.encode(sentence), {}};
      unknown_tally.add(model.unknown_sources(experiment.encoding, sentence.text));
      if (options.compare) {
        const Sentence& other = inputs.sentences[s + 1];
        Variant variant;
        variant.name = "compare";
        variant.text = other.text;
        variant.encoding = model.encode(other);
        variant.alignment = align_by_ids(experiment.encoding, variant.encoding);
        unknown_tally.add(model.unknown_sources(variant.encoding, other.text));
        experiment.variants.push_back(std::move(variant));
      } else if (unit == Unit::kToken) {
        reorder_tokens(model, spec, experiment, what);
      } else {
        reorder_text(model, spec, unit, experiment, what);
      }

      for (Result& result : measure_experiment(model, experiment)) {
        result.model = m;
        result.sentence = s;
        report.results.push_back(std::move(result));
      }
      if (!options.plot_dir.empty() && s == 0) {
        plot_attention(model, report.model_names[m], experiment,
                       std::filesystem::path(options.plot_dir) /
                           (file_stem(report.model_names[m]) + "-attention.svg"));
      }
    }

    const std::string unknown = unknown_tally.message(model.unknown());
    if (!unknown.empty()) {
      auto same = std::find_if(unknown_warnings.begin(), unknown_warnings.end(),
                               [&](const auto& warning) { return warning.first == unknown; });
      if (same == unknown_warnings.end()) {
        unknown_warnings.emplace_back(unknown, report.model_names[m]);
      } else {
        same->second += ", " + report.model_names[m];
      }
    }

    plot::ModelSensitivity sensitivity;
    sensitivity.name = report.model_names[m];
    sensitivity.position_encoding = model.position_encoding();
    sensitivity.layer_distances.assign(static_cast<size_t>(model.layers()) + 1, 0.0);
    const size_t count = report.results.size() - first_result;
    size_t mean_compared = 0;
    for (size_t r = first_result; r < report.results.size(); ++r) {
      sensitivity.mean_cosine_distance += report.results[r].cosine_distance / double(count);
      for (size_t l = 0; l < sensitivity.layer_distances.size(); ++l) {
        sensitivity.layer_distances[l] += report.results[r].layer_distances[l] / double(count);
      }
      mean_compared += !report.results[r].token_aligned;
    }
    if (mean_compared > 0) {
      std::string note = "* ";
      note.append(sensitivity.name).append(": ").append(std::to_string(mean_compared));
      note.append(" of ").append(std::to_string(count));
      note.append(
          " reorderings are not a rearrangement of its tokens; their layer distances compare "
          "mean hidden states");
      layer_notes.push_back(std::move(note));
      marked_names.push_back(sensitivity.name);
    }
    sensitivities.push_back(std::move(sensitivity));
  }

  for (const auto& [message, models] : unknown_warnings) {
    std::fprintf(stderr, "tinyenc: warning: %s: %s\n", models.c_str(), message.c_str());
  }
  if (format == OutputFormat::kJson) {
    sink.write(to_json(report));
  } else if (format == OutputFormat::kCsv) {
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
    std::vector<plot::ModelSensitivity> marked = sensitivities;
    for (plot::ModelSensitivity& sensitivity : marked) {
      if (std::count(marked_names.begin(), marked_names.end(), sensitivity.name)) {
        sensitivity.name += " *";
      }
    }
    write_file(dir / "layers.svg", plot::draw_layer_distances(marked, subtitle, layer_notes));
  }
  sink.commit();
  return 0;
}

}  // namespace
}  // namespace order

RunCommand add_order_command(CLI::App& root) {
  auto options = std::make_shared<order::OrderOptions>();
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
                       "What moves: word (words as people mean them: see below), char (code "
                       "points), token (the model's tokens, ids permuted directly; [CLS]/[SEP], "
                       "<s>/</s> stay put). Default token with --ids")
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
  auto* position_offset = add_position_offset_option(*command, options->position_offset);
  command
      ->add_option("--shift", options->shift,
                   "The shift-invariance experiment instead of reordering: every position id + "
                   "K for each K given (from 1), outputs against K = 0 per model; relative PE "
                   "kinds give 0, absolute ones move (see below)")
      ->type_name("K1,K2,...")
      ->excludes(perturbation)
      ->excludes(unit)
      ->excludes(positions)
      ->excludes(shuffles)
      ->excludes(seed)
      ->excludes(position_offset)
      ->excludes("--compare");
  add_output_options(*command, options->output,
                     {OutputFormat::kText, OutputFormat::kJson, OutputFormat::kCsv});
  command
      ->add_option("--plot-dir", options->plot_dir,
                   "Draw SVG pictures into DIR: <model>-attention.svg, summary.svg, layers.svg "
                   "(with --shift: shift.svg)")
      ->type_name("DIR");
  // `--plot FILE` elsewhere draws one figure; here it would be a folder: refused with a hint.
  command->add_option("--plot", options->plot_file)->group("");
  add_threads_option(*command, options->threads);
  add_dtype_option(*command, options->dtype);
  add_experiment_options(*command, options->experiments);
  command->footer(R"(Measures, per model and reordering:
  cosine distance   1 - cos between the pooled outputs of the original and the reordering
  max |Δlogit|      largest change of a logit; the label flips when the argmax changes
  layer distances   for layer 0 (embeddings + position encoding) .. L (the output): the mean
                    over tokens of 1 - cos between a token's hidden state in the original and the
                    same token's in the reordering. Without a position encoding every one is ~0.
                    Tokens are followed by their unit, or by id when the reordering's tokens are
                    the original's rearranged (English, Chinese, mixed). When they are not (char
                    units in English), each layer's mean hidden states are compared instead:
                    marked * in the table, "layer_alignment": "mean" in JSON/CSV, in layers.svg
                    and in the attention figure's third panel.
Words (--unit word, the default): where the text puts spaces between Chinese characters
("小明 被 小红 打了") the person has cut it, and each space-separated unit is a word. Otherwise
English (and any spaced script) is cut at spaces, and each run of Chinese characters by longest
match against the model's own vocabulary: its pieces of two or more characters (▁ and ## taken
off) are the words, so 小明 moves as one unit when the tokenizer has it as a piece; a character
in no such piece is a word of its own. Mixed text gets both.
Unknown tokens (not in the vocabulary: sentencepiece <unk>, WordPiece [UNK]) are named on one
warning line on stderr, under each sentence of the table, and in JSON/CSV ("unknown",
"perturbed_unknown"). A reordering that changes only unknown tokens (the known tokens the same,
in the same order; 狗咬人 and 人咬狗 when the vocabulary knows none of them) moves words the
model cannot read: it gets no verdict ("no verdict †" in the table, "unknown_only": true and
"label_flipped": null in JSON/CSV) rather than "no flip".
The default is every swap of two words. Reordering never moves the template's tokens ([CLS]
[SEP], <s> </s>). Reverse alone can mislead: ALiBi's bias depends only on |i - j|, which
reversing a whole sequence keeps, so an ALiBi encoder without such fixed ends cannot see it.
--ids hold in place the ids of the folder's tokenizer template (<s> </s>, [CLS] [SEP]) when it
has a tokenizer, and no token otherwise: a model pooling its first token ([CLS]) then pools
whichever token comes first, and its cosine distance measures that token's change more than the
order's.
--shift K1,K2,... (e.g. 1,2,4,8,16,32,64,128) runs each sentence as given at offset 0 and at
each K, where every position id is K higher (as if the sentence began K tokens later), and
reports per model and K the cosine distance of the pooled outputs (mean over the sentences),
max |Δlogit| and label flips. RoPE, ALiBi and T5 relative depend on i - j only: ALiBi and
relative give 0 exactly, RoPE float rounding; sinusoidal and learned move. A learned table has
no rows past its end: such a K shows "cannot" (JSON: null and a "reason"), never a number.
With --plot-dir, shift.svg draws the distance against K.
--position-offset K runs every input of the ordinary experiment K positions later.
--plot-dir DIR draws <model>-attention.svg (layer 1's heads on the first sentence and on its
reordering that moves the units farthest, side by side, as the seed article's figure 1),
summary.svg (mean cosine distance per model, coloured by PE kind) and layers.svg.

Absolute against relative position, instead of the reorderings:
--extrapolate FILE  accuracy against sentence length. FILE: one JSON object a line, {"text":
                    "...", "label": "<a name of the model's id2label>", "tokens": N (optional,
                    not used)}; other fields are ignored. Each model tokenizes the texts; they
                    are grouped by token count (the template's <s> </s> or [CLS] [SEP] counted)
                    into buckets of --bucket N.
                    A bucket holding a sentence longer than a model runs (a learned table's rows,
                    else max_position_embeddings, which the engine enforces) is "cannot" for it
                    (null and the reason in JSON). --plot-dir draws extrapolation.svg.
--attention-distance  per model, layer and head, on the sentences: the mean |i-j| from query i
                    to key j weighted by the attention probability, and the share of attention
                    on the same token, on +-1 and on +-2; means over every query token, special
                    tokens included. "uniform" rows show the same for attention spread evenly
                    ((n^2-1)/3n for n tokens). --plot-dir draws attention_distance.svg.

Examples:
  tinyenc order --models models/pretrained/order-* 我打你
  tinyenc order --compare -m models/pretrained/order-rope 我打你 你打我
  tinyenc order --models models/pretrained/order-* --shift 1,4,16,64 我打你 小明把小红打了
  tinyenc order -m DIR -p shuffle --shuffles 20 --seed 1 --json -i sentences.txt
  tinyenc order -m tests/golden/encoders/none --ids 5,9,13,21 -p permutations --plot-dir pictures
  tinyenc order --models models/pretrained/order-* --extrapolate long.jsonl --plot-dir pictures
  tinyenc order --models models/pretrained/order-* --attention-distance 我打你 小明被小红打了)");
  return [options] { return order::run(*options); };
}

}  // namespace tinyenc::cli
