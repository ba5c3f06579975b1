// `tinyenc run`: a model folder on texts (arguments, a file or standard input), sorted and batched
// in windows (tinyenc::Model::Stream); prints tokens, the predicted label with its probability,
// and (as JSON) logits and embeddings, in input order.
#include <fcntl.h>
#include <sys/stat.h>
#include <tinyenc/forward.h>
#include <tinyenc/info.h>
#include <tinyenc/options.h>
#include <tinyenc/tinyenc.h>
#include <tinyenc/tokenizer.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "command.h"
#include "corpus.h"
#include "json_text.h"
#include "line_reader.h"
#include "model_summary.h"
#include "options.h"
#include "output.h"
#include "progress.h"
#include "unknown_tokens.h"

namespace tinyenc::cli {
namespace {

struct RunOptions {
  std::string model;
  InputOptions input;
  std::string ids;
  std::string pooling;
  bool normalize = false;
  bool hidden_states = false;
  OutputOptions output;
  OutputFormat format = OutputFormat::kText;  // output.format(), once checked
  bool per_token = false;  // pooling none: a vector per token instead of one per text
  int batch_size = Model::EmbedOptions().max_batch_texts;
  int window = Model::EmbedOptions().window;
  int64_t max_batch_tokens = Model::EmbedOptions().max_batch_tokens;
  int threads = 0;
  bool truncate = false;
  std::string long_texts = "error";
  int64_t overlap = 0;
  std::string shard;
  bool progress = false, no_progress = false;
  bool verbose = false;
  std::string dtype;
  int64_t position_offset = 0;
};

// --pooling: "" or one of the library's names.
void check_pooling(const std::string& pooling) {
  const std::vector<std::string> names = pooling_names();
  if (pooling.empty() || std::find(names.begin(), names.end(), pooling) != names.end()) return;
  std::string expected;
  for (size_t i = 0; i < names.size(); ++i) {
    expected += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  }
  throw UsageError("--pooling: expected " + expected + ", got '" + pooling + "'");
}

// Rows of `dimension` floats, one per token.
nlohmann::json token_rows(const std::vector<float>& rows, size_t tokens) {
  const size_t d = rows.size() / std::max<size_t>(tokens, 1);
  nlohmann::json out = nlohmann::json::array();
  for (size_t t = 0; t < tokens; ++t) {
    out.push_back(
        json_floats(std::vector<float>(rows.begin() + t * d, rows.begin() + (t + 1) * d)));
  }
  return out;
}

using Result = Model::Result;

nlohmann::json to_json(const Result& out, const std::vector<size_t>& unknown, bool hidden_states,
                       bool per_token) {
  nlohmann::json item;
  item["text"] = out.text;
  item["tokens"] = out.encoding.tokens;
  item["ids"] = out.encoding.ids;
  item["unknown"] = unknown;
  if (out.label_id >= 0) {
    item["label"] = out.label;
    item["probabilities"] = json_floats(out.probabilities);
    item["logits"] = json_floats(out.logits);
  }
  if (per_token) {
    // [tokens][d_model], as llama-embedding gives with pooling none.
    item["embedding"] = token_rows(out.token_embeddings, out.encoding.size());
  } else if (!out.embedding.empty()) {
    item["embedding"] = json_floats(out.embedding);
  }
  if (hidden_states) item["hidden_states"] = token_rows(out.hidden, out.encoding.size());
  return item;
}

std::string table_row(const Result& out, const std::vector<std::string>& tokens, bool per_token) {
  std::string row = out.text + "\n  tokens  ";
  for (size_t t = 0; t < tokens.size(); ++t) row += (t ? " " : "") + tokens[t];
  row += "\n";
  char buffer[64];
  if (out.label_id >= 0) {
    std::snprintf(buffer, sizeof buffer, "  %.4f",
                  static_cast<double>(out.probabilities[static_cast<size_t>(out.label_id)]));
    row += "  label   " + out.label + buffer + "\n";
  }
  if (per_token) {
    const size_t d = out.token_embeddings.size() / std::max<size_t>(out.encoding.size(), 1);
    std::snprintf(buffer, sizeof buffer, "  embedding [%zu x %zu], a vector per token\n",
                  out.encoding.size(), d);
    row += buffer;
  } else if (out.label_id < 0 && !out.embedding.empty()) {
    double norm = 0.0;
    for (float value : out.embedding) norm += double(value) * value;
    std::snprintf(buffer, sizeof buffer, "  embedding [%zu], L2 norm %.4f\n", out.embedding.size(),
                  std::sqrt(norm));
    row += buffer;
  }
  if (out.chunks > 1)
    row += "  chunks  " + std::to_string(out.chunks) + ", joined by token-weighted mean\n";
  return row;
}

// The most texts in one forward pass. A batch holds its tokens x d_model floats per activation
// and, padded, batch x heads x seq^2 attention scores; past a few thousand texts that is memory,
// not speed.
constexpr int kMaxBatchSize = 4096;
// A window of a million texts keeps their outputs (a vector each, hidden states with
// --hidden-states) in memory together; more buys no better sorting.
constexpr int kMaxWindow = 1 << 20;

// Writes each text's record as its window completes, in input order: the table, JSON lines, or
// one JSON document written piece by piece (so memory stays bounded on that path too).
class RecordWriter {
 public:
  RecordWriter(const RunOptions& options, const Model& model, OutputSink& sink)
      : options_(options), model_(model), sink_(sink) {
    if (has_tokenizer(model)) unknown_ = UnknownToken::of(Tokenizer::of(model));
  }

  void write(const Result& out) {
    const std::string& text = out.text;
    // The halves of a --pair text, which the offsets of its tokens count in.
    std::string_view first = text, second;
    if (options_.input.pair && options_.ids.empty()) std::tie(first, second) = split_pair(text);
    const std::vector<size_t> unknown = unknown_positions(out.encoding, unknown_);
    std::vector<std::string> sources;
    for (size_t t : unknown) sources.push_back(token_source(out.encoding, t, first, second));
    tally_.add(sources);
    if (options_.format == OutputFormat::kText) {
      sink_.write(
          table_row(out, marked_tokens(out.encoding, unknown, first, second), options_.per_token));
    } else {
      nlohmann::json item = to_json(out, unknown, options_.hidden_states, options_.per_token);
      if (out.chunks > 1) item["chunks"] = out.chunks;
      if (options_.format == OutputFormat::kJsonl) {
        sink_.write(json_text(item) + "\n");
      } else {
        begin_document();
        sink_.write((records_ ? "," : "") + json_text(item));
      }
    }
    ++records_;
  }

  size_t records() const { return records_; }

  // After a window: what was written reaches a reader at the other end of a pipe now.
  void flush() { sink_.flush(); }

  // The one line naming the tokens the vocabulary did not know, if any.
  void warn_unknown() const { tally_.warn(unknown_); }

  void finish() {
    if (options_.format != OutputFormat::kJson) return;
    begin_document();
    sink_.write("]}\n");
  }

 private:
  void begin_document() {
    if (begun_) return;
    begun_ = true;
    sink_.write("{\"model\":" + json_text(nlohmann::json(options_.model)) +
                ",\"labels\":" + json_text(nlohmann::json(model_.labels())) + ",\"inputs\":[");
  }

  const RunOptions& options_;
  const Model& model_;
  OutputSink& sink_;
  size_t records_ = 0;
  bool begun_ = false;
  UnknownToken unknown_;
  UnknownTally tally_;
};

// Whether a descriptor is a regular file: read straight through, never waited on.
bool regular_file(int fd) {
  struct stat status;
  return ::fstat(fd, &status) == 0 && S_ISREG(status.st_mode);
}

// The input's size in bytes for the progress line: a regular file's, else 0 (unknown).
uint64_t input_bytes(const RunOptions& options) {
  if (!options.ids.empty() || !options.input.texts.empty()) return 0;
  struct stat status;
  if (options.input.file.empty() || options.input.file == "-") {
    if (::fstat(STDIN_FILENO, &status) != 0 || !S_ISREG(status.st_mode)) return 0;
    // What is left of it: `< file` may be read from an offset.
    const off_t at = ::lseek(STDIN_FILENO, 0, SEEK_CUR);
    return static_cast<uint64_t>(status.st_size - std::max<off_t>(at, 0));
  }
  if (::stat(options.input.file.c_str(), &status) != 0 || !S_ISREG(status.st_mode)) return 0;
  return static_cast<uint64_t>(status.st_size);
}

int run(RunOptions& options) {
  check_range("--batch-size", int64_t{options.batch_size}, 1, kMaxBatchSize);
  check_range("--window", int64_t{options.window}, 1, kMaxWindow);
  check_range("--max-batch-tokens", options.max_batch_tokens, 1, int64_t{1} << 30);
  check_range("--overlap", options.overlap, 0, int64_t{1} << 30);
  if (options.progress && options.no_progress) {
    throw UsageError("--progress and --no-progress: give one");
  }
  if (options.truncate) {
    if (options.long_texts == "chunk") {
      throw UsageError("--truncate is --long truncate; it cannot go with --long chunk");
    }
    // Another word than the default is the library's to refuse.
    if (options.long_texts == "error") options.long_texts = "truncate";
  }
  check_position_offset(options.position_offset);
  const int threads = checked_threads(options.threads);
  options.format = options.output.format();
  if (!options.ids.empty() && (!options.input.texts.empty() || !options.input.file.empty())) {
    throw UsageError("--ids replaces the texts: give one or the other");
  }
  std::optional<Shard> shard;
  if (!options.shard.empty()) {
    shard = parse_shard(options.shard);
    if (options.input.file.empty() || options.input.file == "-" || !options.input.texts.empty() ||
        !options.ids.empty()) {
      throw UsageError("--shard splits the lines of a file: give -i FILE and no other texts");
    }
    if (options.format == OutputFormat::kJson) {
      throw UsageError(
          "--shard: --json writes one document per run; use --jsonl or the table, "
          "whose shards concatenate into the whole run's output");
    }
    struct stat status;
    if (::stat(options.input.file.c_str(), &status) == 0 && !S_ISREG(status.st_mode)) {
      throw UsageError("--shard: " + options.input.file +
                       " is not a regular file; its lines are counted first, so it must be");
    }
  }
  check_pooling(options.pooling);
  ForwardLoadOptions load;
  load.options.pooling = options.pooling;
  load.options.normalize = options.normalize;
  load.options.truncate = options.long_texts == "truncate";
  load.options.threads = threads;
  load.options.dtype = checked_dtype(options.dtype);
  load.options.position_offset = options.position_offset;
  load.truncate_hint = options.position_offset > 0
                           ? "use --truncate to cut it"
                           : "use --truncate to cut it or --long chunk to split it";
  Model model = load_for_forward(options.model, load);
  options.per_token = model.pooling() == "none";
  if (options.hidden_states && options.format == OutputFormat::kText) {
    std::fprintf(stderr,
                 "tinyenc: note: --hidden-states are written with --json or --jsonl; the text "
                 "table leaves them out\n");
  }
  if (options.verbose) {
    std::fprintf(stderr, "tinyenc: %s\n", summary_line(model_info(model)).c_str());
  }

  Model::EmbedOptions corpus;
  corpus.window = options.window;
  corpus.max_batch_tokens = options.max_batch_tokens;
  corpus.max_batch_texts = options.batch_size;
  corpus.pair = options.input.pair;
  corpus.hidden_states = options.hidden_states;
  corpus.long_texts = options.long_texts;
  corpus.overlap = options.overlap;
  corpus.names = command_line_names();
  check_chunking(corpus, options.per_token);
  std::optional<LineRange> lines;
  if (shard) lines = shard_lines(options.input.file, *shard, options.window);

  // Opened before any input is read: a path that cannot be written fails now, not after it.
  OutputSink sink(options.output.path);
  RecordWriter writer(options, model, sink);
  const bool show_progress = options.progress || (!options.no_progress && progress_default());
  Progress progress(show_progress,
                    lines ? lines->end_byte - lines->first_byte : input_bytes(options));
  Model::Stream::Hooks hooks;
  hooks.window_done = [&] { writer.flush(); };
  hooks.progress = [&](uint64_t texts, int64_t tokens, uint64_t bytes) {
    progress.update(texts, tokens, bytes);
  };
  Model::Stream runner = model.stream(
      corpus, [&](Result& result) { writer.write(result); }, std::move(hooks));
  if (!options.ids.empty()) {
    runner.add_ids(parse_integer_list(options.ids, "--ids", "integer id"), options.ids);
  } else if (lines) {
    // The shard's lines only, from where they begin; records keep the file's line numbers.
    const int fd = ::open(options.input.file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0 || ::lseek(fd, static_cast<off_t>(lines->first_byte), SEEK_SET) < 0) {
      if (fd >= 0) ::close(fd);
      throw std::invalid_argument(options.input.file + ": cannot open the input file");
    }
    try {
      LineReader file(fd, options.input.file);
      runner.set_next_index(lines->first_line);
      add_lines(runner, file, /*interactive=*/false, lines->end_line - lines->first_line);
    } catch (...) {
      ::close(fd);
      throw;
    }
    ::close(fd);
  } else {
    bool from_stdin = options.input.file == "-";
    for (const std::string& text : options.input.texts) {
      if (text == "-") {
        from_stdin = true;
      } else {
        runner.add(text);
      }
    }
    if (!options.input.file.empty() && options.input.file != "-") {
      LineReader file(options.input.file);
      struct stat status;
      const bool regular =
          ::stat(options.input.file.c_str(), &status) == 0 && S_ISREG(status.st_mode);
      add_lines(runner, file, !regular);
    }
    if (from_stdin) {
      LineReader standard_input(STDIN_FILENO, "standard input");
      add_lines(runner, standard_input, !regular_file(STDIN_FILENO));
    }
  }
  runner.flush();
  progress.finish();
  // An empty shard is a shard of a short file: its part of the output is empty.
  if (writer.records() == 0 && !shard) {
    throw UsageError("no input texts (give TEXT..., -i FILE or -)");
  }
  writer.finish();
  sink.commit();
  writer.warn_unknown();
  return 0;
}

}  // namespace

RunCommand add_run_command(CLI::App& root) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* command =
      root.add_subcommand("run", "Run a model folder on texts: tokens, labels, logits, embeddings");
  command
      ->add_option("-m,--model", options->model,
                   "Model folder (config.json, model.safetensors, tokenizer)")
      ->required();
  add_input_options(*command, options->input);
  command->add_option("--ids", options->ids, "Comma-separated token ids, bypassing the tokenizer");
  command->add_option("--pooling", options->pooling,
                      "Override pooling: cls | mean | pooler | none (none: a vector per token; "
                      "a head still labels from the model's own pooling)");
  command->add_flag("--normalize", options->normalize, "L2-normalize the embeddings");
  command->add_flag("--hidden-states", options->hidden_states,
                    "Include the last hidden state (--json/--jsonl; the text table shows none)");
  add_output_options(*command, options->output,
                     {OutputFormat::kText, OutputFormat::kJson, OutputFormat::kJsonl});
  command
      ->add_option("--batch-size", options->batch_size,
                   "At most this many texts per forward pass (the token budget fills batches)")
      ->capture_default_str();
  command
      ->add_option("--max-batch-tokens", options->max_batch_tokens,
                   "Token budget of a batch: texts of a window, sorted by length, are packed "
                   "until their real tokens would pass it")
      ->capture_default_str();
  command
      ->add_option("--window", options->window,
                   "Texts read, sorted and batched together before their records go out in "
                   "input order (memory is bounded by it)")
      ->capture_default_str();
  command->add_option("--batch", options->batch_size)->group("");  // as `bench` once spelled it
  add_threads_option(*command, options->threads);
  add_dtype_option(*command, options->dtype);
  add_position_offset_option(*command, options->position_offset);
  command
      ->add_option("--long", options->long_texts,
                   "Texts longer than the model allows: error | truncate (cut to fit) | chunk "
                   "(windows of the text's tokens, each between the template's specials, run "
                   "alone; the text's embedding and logits are their mean weighted by each "
                   "window's text tokens, re-normalized if the model normalizes; cls/pooler "
                   "pool each window's first token, mean each window's tokens; probabilities = "
                   "softmax of the mean logits. Not with --pair, --hidden-states or pooling "
                   "none; JSON records get \"chunks\": K)")
      ->capture_default_str();
  command->add_flag("--truncate", options->truncate, "The same as --long truncate");
  command
      ->add_option("--overlap", options->overlap,
                   "--long chunk: tokens consecutive windows share (less than a window's text)")
      ->capture_default_str();
  command->add_option("--shard", options->shard,
                      "I/N: run only shard I (0-based) of N contiguous parts of -i FILE, each a "
                      "run of whole windows (I*K/N to (I+1)*K/N of the file's K windows); the "
                      "shards' --jsonl or table outputs concatenated in order are the whole "
                      "run's byte for byte, given the same --window (not with --json)");
  command->add_flag("--progress", options->progress,
                    "Show a progress line on stderr even when it is not a terminal");
  command->add_flag("--no-progress", options->no_progress,
                    "No progress line, even on a terminal (default: shown on a terminal)");
  command->add_flag("-v,--verbose", options->verbose,
                    "Describe the model in one line on stderr first (tinyenc info -m: all of it)");
  command->footer(
      "Tokens the vocabulary does not know get the unknown id (sentencepiece <unk>, WordPiece\n"
      "[UNK]) and the model sees them all alike: the table shows them as \u27e8unk:TEXT\u27e9 "
      "(TEXT: the\ninput they stand for), JSON lists their positions in \"unknown\", and one "
      "warning line on\nstderr counts them and names them.");
  return [options] { return run(*options); };
}

}  // namespace tinyenc::cli
