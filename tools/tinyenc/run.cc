// `tinyenc run`: a model folder on texts (arguments, a file or standard input), batched; prints
// tokens, the predicted label with its probability, and (as JSON) logits and embeddings.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "engine/encoder.h"
#include "tools/tinyenc/command.h"
#include "tools/tinyenc/model_summary.h"
#include "tools/tinyenc/output.h"
#include "tools/tinyenc/pipeline.h"

namespace tinyenc::cli {
namespace {

struct RunOptions {
  std::string model;
  std::vector<std::string> texts;
  std::string input_file;
  std::string ids;
  bool pair = false;
  std::string pooling;
  bool normalize = false;
  bool hidden_states = false;
  bool json = false;
  bool jsonl = false;
  std::string output = "-";
  int batch_size = 32;
  int threads = 0;
  bool truncate = false;
  bool verbose = false;
};

std::vector<std::string> read_lines(std::istream& in) {
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

std::vector<std::string> gather_texts(const RunOptions& options) {
  std::vector<std::string> texts;
  bool from_stdin = options.input_file == "-";
  for (const std::string& text : options.texts) {
    if (text == "-") {
      from_stdin = true;
    } else {
      texts.push_back(text);
    }
  }
  if (!options.input_file.empty() && options.input_file != "-") {
    std::ifstream in(options.input_file);
    if (!in) throw UsageError(options.input_file + ": cannot open the input file");
    for (std::string& line : read_lines(in)) texts.push_back(std::move(line));
  }
  if (from_stdin) {
    for (std::string& line : read_lines(std::cin)) texts.push_back(std::move(line));
  }
  return texts;
}

std::vector<int32_t> parse_ids(const std::string& text) {
  std::vector<int32_t> ids;
  std::stringstream stream(text);
  for (std::string item; std::getline(stream, item, ',');) {
    try {
      size_t used = 0;
      const long long value = std::stoll(item, &used);
      if (used != item.size() || value < INT32_MIN || value > INT32_MAX) throw std::exception();
      ids.push_back(static_cast<int32_t>(value));
    } catch (const std::exception&) {
      throw UsageError("--ids: '" + item + "' is not an integer id");
    }
  }
  if (ids.empty()) throw UsageError("--ids: no ids given");
  return ids;
}

std::optional<Pooling> parse_pooling(const std::string& name) {
  if (name.empty()) return std::nullopt;
  for (Pooling pooling : {Pooling::kCls, Pooling::kMean, Pooling::kPooler, Pooling::kNone}) {
    if (pooling_name(pooling) == name) return pooling;
  }
  throw UsageError("--pooling: expected cls, mean, pooler or none, got '" + name + "'");
}

void normalize(std::vector<float>& values) {
  double norm = 0.0;
  for (float value : values) norm += double(value) * value;
  norm = std::sqrt(norm);
  if (norm > 0.0) {
    for (float& value : values) value = static_cast<float>(value / norm);
  }
}

nlohmann::json to_json(const Pipeline& pipeline, const std::string& text, const TextOutput& out,
                       bool hidden_states) {
  nlohmann::json item;
  item["text"] = text;
  item["tokens"] = out.encoding.tokens;
  item["ids"] = out.encoding.ids;
  if (out.label >= 0) {
    item["label"] = pipeline.label_name(out.label);
    item["probabilities"] = json_floats(out.probabilities);
    item["logits"] = json_floats(out.logits);
  }
  if (!out.embedding.empty()) item["embedding"] = json_floats(out.embedding);
  if (hidden_states) {
    const size_t d = out.hidden.size() / std::max<size_t>(out.encoding.size(), 1);
    nlohmann::json rows = nlohmann::json::array();
    for (size_t t = 0; t < out.encoding.size(); ++t) {
      rows.push_back(json_floats(
          std::vector<float>(out.hidden.begin() + t * d, out.hidden.begin() + (t + 1) * d)));
    }
    item["hidden_states"] = std::move(rows);
  }
  return item;
}

std::string table_row(const Pipeline& pipeline, const std::string& text, const TextOutput& out) {
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
  } else if (!out.embedding.empty()) {
    double norm = 0.0;
    for (float value : out.embedding) norm += double(value) * value;
    std::snprintf(buffer, sizeof buffer, "  embedding [%zu], L2 norm %.4f\n", out.embedding.size(),
                  std::sqrt(norm));
    row += buffer;
  }
  return row;
}

int run(const RunOptions& options) {
  if (options.batch_size <= 0) throw UsageError("--batch-size must be > 0");
  set_threads(options.threads);
  PipelineOptions pipeline_options;
  pipeline_options.pooling = parse_pooling(options.pooling);
  pipeline_options.truncate = options.truncate;
  Pipeline pipeline(options.model, pipeline_options);
  if (options.verbose) {
    const nlohmann::json summary = summarize_model(pipeline.dir(), pipeline.model(),
                                                   pipeline.encoder(), &pipeline.tokenizer());
    std::fprintf(stderr, "tinyenc: %s\n", summary_line(summary).c_str());
  }

  std::vector<std::string> texts;
  std::vector<Encoding> encodings;
  if (!options.ids.empty()) {
    if (!options.texts.empty() || !options.input_file.empty()) {
      throw UsageError("--ids replaces the texts: give one or the other");
    }
    encodings.push_back(pipeline.encode_ids(parse_ids(options.ids)));
    texts.push_back(options.ids);
  } else {
    texts = gather_texts(options);
    if (texts.empty()) throw UsageError("no input texts (give TEXT..., -i FILE or -)");
    for (size_t i = 0; i < texts.size(); ++i) {
      try {
        encodings.push_back(pipeline.encode(texts[i], options.pair));
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument("input " + std::to_string(i + 1) + ": " + e.what());
      }
    }
  }

  OutputSink sink(options.output);
  nlohmann::json document;
  document["model"] = options.model;
  document["labels"] = pipeline.model().config.labels;
  document["inputs"] = nlohmann::json::array();
  for (size_t begin = 0; begin < encodings.size(); begin += options.batch_size) {
    const size_t end = std::min(encodings.size(), begin + static_cast<size_t>(options.batch_size));
    std::vector<Encoding> batch(encodings.begin() + begin, encodings.begin() + end);
    std::vector<TextOutput> outputs = pipeline.run(batch, options.hidden_states);
    for (size_t i = 0; i < outputs.size(); ++i) {
      TextOutput& out = outputs[i];
      if (options.normalize) normalize(out.embedding);
      const std::string& text = texts[begin + i];
      if (options.jsonl) {
        sink.write(to_json(pipeline, text, out, options.hidden_states).dump() + "\n");
        sink.flush();
      } else if (options.json) {
        document["inputs"].push_back(to_json(pipeline, text, out, options.hidden_states));
      } else {
        sink.write(table_row(pipeline, text, out));
      }
    }
  }
  if (options.json) sink.write(document.dump() + "\n");
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
  command->add_option("texts", options->texts, "Texts to run ('-' reads standard input)");
  command->add_option("-i,--input", options->input_file,
                      "File with one text per line ('-': stdin)");
  command->add_option("--ids", options->ids, "Comma-separated token ids, bypassing the tokenizer");
  command->add_flag("--pair", options->pair, "Each text is a sentence pair separated by a tab");
  command->add_option("--pooling", options->pooling,
                      "Override pooling: cls | mean | pooler | none");
  command->add_flag("--normalize", options->normalize, "L2-normalize the embeddings");
  command->add_flag("--hidden-states", options->hidden_states,
                    "Include the last hidden state (JSON)");
  auto* json = command->add_flag("--json", options->json, "One JSON document");
  command->add_flag("--jsonl", options->jsonl, "One JSON line per text, streamed")->excludes(json);
  command->add_option("-o,--output", options->output, "Write to FILE atomically instead of stdout");
  command->add_option("--batch-size", options->batch_size, "Texts per forward pass")
      ->capture_default_str();
  command->add_option("--threads", options->threads, "Threads (0: physical cores)")
      ->capture_default_str();
  command->add_flag("--truncate", options->truncate, "Cut texts longer than the model allows");
  command->add_flag("-v,--verbose", options->verbose,
                    "Describe the model in one line on stderr first (tinyenc info -m: all of it)");
  return [options] { return run(*options); };
}

}  // namespace tinyenc::cli
