// `tinyenc run`: a model folder on texts (arguments, a file or standard input), batched; prints
// tokens, the predicted label with its probability, and (as JSON) logits and embeddings.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "engine/encoder.h"
#include "models/normalize_embedding.h"
#include "models/pipeline.h"
#include "tokenizer/tokenizer_file.h"
#include "tools/tinyenc/command.h"
#include "tools/tinyenc/json_text.h"
#include "tools/tinyenc/line_reader.h"
#include "tools/tinyenc/model_summary.h"
#include "tools/tinyenc/options.h"
#include "tools/tinyenc/output.h"

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
  int batch_size = 32;
  int threads = 0;
  bool truncate = false;
  bool verbose = false;
  std::string dtype;
};

std::optional<Pooling> parse_pooling(const std::string& name) {
  if (name.empty()) return std::nullopt;
  for (Pooling pooling : {Pooling::kCls, Pooling::kMean, Pooling::kPooler, Pooling::kNone}) {
    if (pooling_name(pooling) == name) return pooling;
  }
  throw UsageError("--pooling: expected cls, mean, pooler or none, got '" + name + "'");
}

// The last hidden state's rows, one per token; with `normalized`, each of unit L2 norm.
nlohmann::json token_rows(const TextOutput& out, bool normalized) {
  const size_t d = out.hidden.size() / std::max<size_t>(out.encoding.size(), 1);
  nlohmann::json rows = nlohmann::json::array();
  for (size_t t = 0; t < out.encoding.size(); ++t) {
    std::vector<float> row(out.hidden.begin() + t * d, out.hidden.begin() + (t + 1) * d);
    if (normalized) normalize_embedding(row);
    rows.push_back(json_floats(row));
  }
  return rows;
}

nlohmann::json to_json(const Pipeline& pipeline, const std::string& text, const TextOutput& out,
                       bool hidden_states, bool per_token, bool normalized) {
  nlohmann::json item;
  item["text"] = text;
  item["tokens"] = out.encoding.tokens;
  item["ids"] = out.encoding.ids;
  if (out.label >= 0) {
    item["label"] = pipeline.label_name(out.label);
    item["probabilities"] = json_floats(out.probabilities);
    item["logits"] = json_floats(out.logits);
  }
  if (per_token) {
    // [tokens][d_model], as llama-embedding gives with pooling none.
    item["embedding"] = token_rows(out, normalized);
  } else if (!out.embedding.empty()) {
    item["embedding"] = json_floats(out.embedding);
  }
  if (hidden_states) item["hidden_states"] = token_rows(out, false);
  return item;
}

std::string table_row(const Pipeline& pipeline, const std::string& text, const TextOutput& out,
                      bool per_token) {
  std::string row = text + "\n  tokens  ";
  for (size_t t = 0; t < out.encoding.tokens.size(); ++t) {
    row += (t ? " " : "") + out.encoding.tokens[t];
  }
  row += "\n";
  char buffer[64];
  if (out.label >= 0) {
    std::snprintf(buffer, sizeof buffer, "  %.4f",
                  static_cast<double>(out.probabilities[out.label]));
    row += "  label   " + pipeline.label_name(out.label) + buffer + "\n";
  }
  if (per_token) {
    const size_t d = out.hidden.size() / std::max<size_t>(out.encoding.size(), 1);
    std::snprintf(buffer, sizeof buffer, "  embedding [%zu x %zu], a vector per token\n",
                  out.encoding.size(), d);
    row += buffer;
  } else if (out.label < 0 && !out.embedding.empty()) {
    double norm = 0.0;
    for (float value : out.embedding) norm += double(value) * value;
    std::snprintf(buffer, sizeof buffer, "  embedding [%zu], L2 norm %.4f\n", out.embedding.size(),
                  std::sqrt(norm));
    row += buffer;
  }
  return row;
}

// The most texts in one forward pass. A padded batch holds batch x seq x d_model floats per
// activation and batch x heads x seq^2 attention scores; past a few thousand texts that is
// memory, not speed.
constexpr int kMaxBatchSize = 4096;
// A batch that is not full goes out when the input has been silent this long, or when its first
// text has waited kMaxWait: lines typed or piped in slowly are answered as they come.
constexpr int kPauseMs = 20;
constexpr auto kMaxWait = std::chrono::milliseconds(200);

// Writes each text's record as its batch completes, in input order: the table, JSON lines, or
// one JSON document written piece by piece (so memory stays bounded on that path too).
class RecordWriter {
 public:
  RecordWriter(const RunOptions& options, const Pipeline& pipeline, OutputSink& sink)
      : options_(options), pipeline_(pipeline), sink_(sink) {}

  void write(const std::string& text, TextOutput& out) {
    if (options_.normalize) normalize_embedding(out.embedding);
    if (options_.format == OutputFormat::kJsonl) {
      sink_.write(json_text(to_json(pipeline_, text, out, options_.hidden_states,
                                    options_.per_token, options_.normalize)) +
                  "\n");
    } else if (options_.format == OutputFormat::kJson) {
      begin_document();
      sink_.write((records_ ? "," : "") +
                  json_text(to_json(pipeline_, text, out, options_.hidden_states,
                                    options_.per_token, options_.normalize)));
    } else {
      sink_.write(table_row(pipeline_, text, out, options_.per_token));
    }
    ++records_;
  }

  // After a batch: what was written reaches a reader at the other end of a pipe now.
  void flush() { sink_.flush(); }

  void finish() {
    if (options_.format != OutputFormat::kJson) return;
    begin_document();
    sink_.write("]}\n");
  }

 private:
  void begin_document() {
    if (begun_) return;
    begun_ = true;
    sink_.write("{\"model\":" + json_text(nlohmann::json(options_.model)) + ",\"labels\":" +
                json_text(nlohmann::json(pipeline_.model().config.labels)) + ",\"inputs\":[");
  }

  const RunOptions& options_;
  const Pipeline& pipeline_;
  OutputSink& sink_;
  size_t records_ = 0;
  bool begun_ = false;
};

// Gathers texts into batches, runs each batch when it is full (or the input pauses), and hands
// the outputs to the writer in input order.
class Batcher {
 public:
  Batcher(const RunOptions& options, Pipeline& pipeline, RecordWriter& writer)
      : options_(options), pipeline_(pipeline), writer_(writer) {}

  void add(std::string text) {
    ++count_;
    try {
      encodings_.push_back(pipeline_.encode(text, options_.input.pair));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("input " + std::to_string(count_) + ": " + e.what());
    }
    enqueue(std::move(text));
  }

  void add_ids(const std::string& text, const std::vector<int32_t>& ids) {
    ++count_;
    encodings_.push_back(pipeline_.encode_ids(ids));
    enqueue(text);
  }

  // Every line of `reader` is a text, an empty one included: record N answers line N.
  void read(LineReader& reader) {
    std::string line;
    for (;;) {
      const auto status = reader.next(line, texts_.empty() ? -1 : kPauseMs);
      if (status == LineReader::Status::kEnd) return;
      if (status == LineReader::Status::kPause) {
        flush();
      } else {
        add(std::move(line));
      }
    }
  }

  void flush() {
    if (texts_.empty()) return;
    std::vector<TextOutput> outputs;
    try {
      outputs = pipeline_.run(encodings_, options_.hidden_states || options_.per_token);
    } catch (const NonFiniteOutputError& e) {
      const size_t input = count_ - texts_.size() + 1 + static_cast<size_t>(e.sequence);
      throw std::invalid_argument(options_.model + ": input " + std::to_string(input) + ": " +
                                  e.what());
    }
    for (size_t i = 0; i < outputs.size(); ++i) writer_.write(texts_[i], outputs[i]);
    writer_.flush();
    texts_.clear();
    encodings_.clear();
  }

  size_t count() const { return count_; }

 private:
  void enqueue(std::string text) {
    if (texts_.empty()) first_arrival_ = std::chrono::steady_clock::now();
    texts_.push_back(std::move(text));
    if (texts_.size() >= static_cast<size_t>(options_.batch_size) ||
        std::chrono::steady_clock::now() - first_arrival_ >= kMaxWait) {
      flush();
    }
  }

  const RunOptions& options_;
  Pipeline& pipeline_;
  RecordWriter& writer_;
  std::vector<std::string> texts_;
  std::vector<Encoding> encodings_;
  std::chrono::steady_clock::time_point first_arrival_;
  size_t count_ = 0;
};

int run(RunOptions& options) {
  check_range("--batch-size", int64_t{options.batch_size}, 1, kMaxBatchSize);
  set_threads(checked_threads(options.threads));
  options.format = options.output.format();
  if (!options.ids.empty() && (!options.input.texts.empty() || !options.input.file.empty())) {
    throw UsageError("--ids replaces the texts: give one or the other");
  }
  PipelineOptions pipeline_options;
  pipeline_options.pooling = parse_pooling(options.pooling);
  // Pooling none gives a vector per token, the last hidden state's rows. The model keeps its own
  // pooling underneath, so that a classification head, trained on pooled vectors, still labels.
  const bool per_token_asked = pipeline_options.pooling == Pooling::kNone;
  if (per_token_asked) pipeline_options.pooling.reset();
  pipeline_options.truncate = options.truncate;
  pipeline_options.dtype = checked_dtype(options.dtype);
  Pipeline pipeline(options.model, pipeline_options);
  options.per_token = per_token_asked || pipeline.model().config.encoder.pooling == Pooling::kNone;
  if (options.hidden_states && options.format == OutputFormat::kText) {
    std::fprintf(stderr,
                 "tinyenc: note: --hidden-states are written with --json or --jsonl; the text "
                 "table leaves them out\n");
  }
  if (options.verbose) {
    const nlohmann::json summary = summarize_model(pipeline.dir(), pipeline.model(),
                                                   pipeline.encoder(), &pipeline.tokenizer());
    std::fprintf(stderr, "tinyenc: %s\n", summary_line(summary).c_str());
  }

  // Opened before any input is read: a path that cannot be written fails now, not after it.
  OutputSink sink(options.output.path);
  RecordWriter writer(options, pipeline, sink);
  Batcher batcher(options, pipeline, writer);
  if (!options.ids.empty()) {
    batcher.add_ids(options.ids, parse_integer_list(options.ids, "--ids", "integer id"));
  } else {
    bool from_stdin = options.input.file == "-";
    for (const std::string& text : options.input.texts) {
      if (text == "-") {
        from_stdin = true;
      } else {
        batcher.add(text);
      }
    }
    if (!options.input.file.empty() && options.input.file != "-") {
      LineReader file(options.input.file);
      batcher.read(file);
    }
    if (from_stdin) {
      LineReader standard_input(STDIN_FILENO, "standard input");
      batcher.read(standard_input);
    }
  }
  batcher.flush();
  if (batcher.count() == 0) throw UsageError("no input texts (give TEXT..., -i FILE or -)");
  writer.finish();
  sink.commit();
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
  command->add_option("--batch-size", options->batch_size, "Texts per forward pass")
      ->capture_default_str();
  command->add_option("--batch", options->batch_size)->group("");  // as `bench` once spelled it
  add_threads_option(*command, options->threads);
  add_dtype_option(*command, options->dtype);
  command->add_flag("--truncate", options->truncate, "Cut texts longer than the model allows");
  command->add_flag("-v,--verbose", options->verbose,
                    "Describe the model in one line on stderr first (tinyenc info -m: all of it)");
  return [options] { return run(*options); };
}

}  // namespace tinyenc::cli
