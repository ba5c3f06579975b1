#include "order/extrapolation.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string_view>
#include <vector>

#include <tinyenc/encoding.h>
#include <tinyenc/forward.h>
#include <tinyenc/text.h>
#include <tinyenc/tinyenc.h>
#include <tinyenc/tokenizer.h>

#include "command.h"
#include "json_text.h"
#include "order/experiments.h"
#include "order/report.h"
#include "order/table_text.h"

namespace tinyenc::cli::order {
namespace {

// Sentences per forward pass.
constexpr size_t kBatch = 64;
// Buckets a default width aims to stay within: a table that fits a screen.
constexpr int64_t kMaxBuckets = 12;

// config.json's statement of the longest training sentence, in tokens with the template, when it
// makes one. The names a training script may give it; none of them changes what the model runs.
std::optional<int64_t> training_max_tokens(const std::filesystem::path& dir) {
  std::ifstream in(dir / "config.json");
  if (!in) return std::nullopt;
  const nlohmann::json config = nlohmann::json::parse(in, nullptr, false);
  if (!config.is_object()) return std::nullopt;
  for (const char* key : {"training_max_tokens", "train_max_tokens", "max_training_tokens",
                          "training_max_length", "train_max_length", "max_train_length"}) {
    const auto value = config.find(key);
    if (value != config.end() && value->is_number_integer() && value->get<int64_t>() > 0) {
      return value->get<int64_t>();
    }
  }
  return std::nullopt;
}

// Why sentences of `tokens` tokens cannot run, for a model that runs at most `limit`.
std::string cannot_reason(const Model& model, int64_t tokens, int64_t limit) {
  const std::string count = std::to_string(tokens) + " tokens";
  if (has_position_table(model)) {
    return count + ": past the learned position table's " + std::to_string(limit) + " positions";
  }
  return count + ": longer than the " + std::to_string(limit) +
         " of max_position_embeddings, which the engine enforces";
}

// A key given twice in one object of a line: "<where>: key '<key>' appears more than once", with
// <where> ("a.b", "items[2]") only for a key below the top-level object.
struct RepeatedKey : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// nlohmann::json::parse(text), which keeps the last of repeated keys silently; this refuses them.
// Throws nlohmann::json::parse_error for text that is not JSON and RepeatedKey.
nlohmann::json parse_unique_keys(std::string_view text) {
  using Event = nlohmann::json::parse_event_t;
  // One entry per open object or array, outermost first.
  struct Level {
    bool is_object = true;
    std::set<std::string> keys;  // an object's keys so far
    std::string key;             // the key whose value is being read
    size_t index = 0;            // an array's element being read
  };
  std::vector<Level> levels;
  // A key from the line, without its quotes, on one line.
  const auto shown = [](const std::string& key) {
    const std::string quoted = in_quotes(key);
    return quoted.ends_with("'...") ? quoted.substr(1, quoted.size() - 5) + "..."
                                    : quoted.substr(1, quoted.size() - 2);
  };
  const auto where = [&] {
    std::string path;
    for (size_t i = 0; i + 1 < levels.size(); ++i) {
      path += levels[i].is_object ? (path.empty() ? "" : ".") + shown(levels[i].key)
                                  : "[" + std::to_string(levels[i].index) + "]";
    }
    return path.empty() ? path : path + ": ";
  };
  const auto element_done = [&levels] {
    if (!levels.empty() && !levels.back().is_object) ++levels.back().index;
  };
  // Throwing from the callback stops the parser at the first repeated key.
  const auto callback = [&](int /*depth*/, Event event, nlohmann::json& parsed) {
    switch (event) {
      case Event::object_start:
      case Event::array_start:
        levels.push_back(Level{event == Event::object_start, {}, {}, 0});
        break;
      case Event::key:
        levels.back().key = parsed.get<std::string>();
        if (!levels.back().keys.insert(levels.back().key).second) {
          throw RepeatedKey(where() + "key " + in_quotes(levels.back().key) +
                            " appears more than once");
        }
        break;
      case Event::object_end:
      case Event::array_end:
        levels.pop_back();
        element_done();
        break;
      case Event::value:
        element_done();
        break;
    }
    return true;
  };
  return nlohmann::json::parse(text.begin(), text.end(), callback);
}

std::string percent(int64_t correct, int64_t total) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f%%", 100.0 * double(correct) / double(total));
  return buffer;
}

std::string bucket_name(const LengthBucket& bucket) {
  if (bucket.low == bucket.high) return std::to_string(bucket.low);
  return std::to_string(bucket.low) + "-" + std::to_string(bucket.high);
}

// One model's view of one sentence.
struct SentenceRun {
  int64_t tokens = 0;
  bool runs = false;
  bool correct = false;
};

}  // namespace

std::vector<LabelledSentence> read_labelled_sentences(LineReader& in) {
  const std::string& name = in.name();
  std::vector<LabelledSentence> sentences;
  for (std::string line; in.next(line) == LineReader::Status::kLine;) {
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    const std::string where = name + ":" + std::to_string(in.line_number());
    nlohmann::json object;
    try {
      // A key given twice means different things to different readers, as in config.json.
      object = parse_unique_keys(line);
    } catch (const RepeatedKey& e) {
      throw UsageError(where + ": " + e.what());
    } catch (const nlohmann::json::parse_error& e) {
      throw UsageError(where + ": not JSON (" + std::string(e.what()) + ")");
    }
    if (!object.is_object()) {
      throw UsageError(where + ": expected an object {\"text\": ..., \"label\": ...}");
    }
    LabelledSentence sentence;
    sentence.origin = where;
    const auto text = object.find("text");
    if (text == object.end()) throw UsageError(where + ": text: missing");
    if (!text->is_string() || text->get<std::string>().empty()) {
      throw UsageError(where + ": text: must be a non-empty string");
    }
    sentence.text = text->get<std::string>();
    const auto label = object.find("label");
    if (label == object.end()) throw UsageError(where + ": label: missing");
    if (!label->is_string() || label->get<std::string>().empty()) {
      throw UsageError(where + ": label: must be a non-empty string (a name of id2label)");
    }
    sentence.label = label->get<std::string>();
    const auto tokens = object.find("tokens");
    if (tokens != object.end() && !tokens->is_null()) {
      if (!tokens->is_number_integer() || tokens->get<int64_t>() < 1) {
        throw UsageError(where + ": tokens: must be a positive integer");
      }
      sentence.tokens = tokens->get<int64_t>();
    }
    sentences.push_back(std::move(sentence));
  }
  if (sentences.empty()) throw UsageError(name + ": no sentences (one JSON object a line)");
  return sentences;
}

int64_t choose_bucket_width(int64_t shortest, int64_t longest, int64_t asked) {
  if (asked > 0) return asked;
  int64_t width = 1;
  while ((longest - 1) / width - (shortest - 1) / width + 1 > kMaxBuckets) width *= 2;
  return width;
}

ExtrapolationReport measure_extrapolation(const std::vector<std::filesystem::path>& models,
                                          const std::vector<LabelledSentence>& sentences,
                                          const std::string& file, int64_t bucket,
                                          const std::string& dtype, int threads) {
  ExtrapolationReport report;
  report.file = file;
  report.sentences = sentences.size();
  const std::vector<std::string> names = model_names(models);
  std::vector<std::vector<SentenceRun>> runs(models.size());
  std::vector<std::map<int64_t, std::string>> reasons(models.size());  // tokens -> why not
  for (size_t m = 0; m < models.size(); ++m) {
    ForwardLoadOptions load_options;
    load_options.options.dtype = dtype;
    load_options.options.threads = threads;
    load_options.truncate_hint = "";
    Model model = load_for_forward(models[m].string(), load_options);
    ModelExtrapolation result;
    result.path = models[m].string();
    result.name = names[m];
    result.position_encoding = position_encoding(model);
    result.max_tokens = model.max_tokens();
    result.training_max_tokens = training_max_tokens(models[m]);

    const int64_t label_count = static_cast<int64_t>(model.labels().size());
    if (label_count <= 0) {
      throw UsageError(result.path + ": no classification head (id2label): --extrapolate " +
                       "measures the accuracy of labels");
    }
    std::map<std::string, int64_t> label_ids;
    std::string known;
    for (int64_t k = 0; k < label_count; ++k) {
      label_ids.emplace(label_name(model, k), k);
      if (k) known += ", ";
      known += label_name(model, k);
    }

    std::vector<Encoding> encodings;
    std::vector<size_t> runnable;
    runs[m].resize(sentences.size());
    for (size_t s = 0; s < sentences.size(); ++s) {
      const LabelledSentence& sentence = sentences[s];
      if (!label_ids.count(sentence.label)) {
        throw UsageError(sentence.origin + ": label: " + in_quotes(sentence.label) +
                         " is not a label of " + result.path + " (its labels: " + known + ")");
      }
      Encoding encoding;
      try {
        encoding = Tokenizer::of(model).encode(sentence.text);
      } catch (const Error& e) {
        if (e.kind() != Error::Kind::kBadInput) throw;
        throw UsageError(sentence.origin + ": text: " + e.what());
      }
      const int64_t tokens = static_cast<int64_t>(encoding.size());
      runs[m][s].tokens = tokens;
      if (result.max_tokens > 0 && tokens > result.max_tokens) {
        reasons[m].emplace(tokens, cannot_reason(model, tokens, result.max_tokens));
        continue;
      }
      check(model, encoding, sentence.origin);
      runs[m][s].runs = true;
      encodings.push_back(std::move(encoding));
      runnable.push_back(s);
    }
    for (size_t begin = 0; begin < encodings.size(); begin += kBatch) {
      const size_t end = std::min(encodings.size(), begin + kBatch);
      const std::vector<Encoding> batch(encodings.begin() + static_cast<ptrdiff_t>(begin),
                                        encodings.begin() + static_cast<ptrdiff_t>(end));
      const std::vector<ForwardOutput> outputs = forward(model, batch);
      for (size_t i = begin; i < end; ++i) {
        const size_t s = runnable[i];
        runs[m][s].correct = outputs[i - begin].label == label_ids.at(sentences[s].label);
      }
    }
    report.models.push_back(std::move(result));
  }

  // Buckets over every model's token counts: models with other tokenizers may count otherwise.
  int64_t shortest = INT64_MAX, longest = 0;
  for (const auto& model_runs : runs) {
    for (const SentenceRun& run : model_runs) {
      shortest = std::min(shortest, run.tokens);
      longest = std::max(longest, run.tokens);
    }
  }
  report.bucket_width = choose_bucket_width(shortest, longest, bucket);
  const int64_t width = report.bucket_width;
  std::set<int64_t> indices;
  for (const auto& model_runs : runs) {
    for (const SentenceRun& run : model_runs) indices.insert((run.tokens - 1) / width);
  }
  for (int64_t index : indices) report.buckets.push_back({index * width + 1, (index + 1) * width});
  for (size_t m = 0; m < models.size(); ++m) {
    ModelExtrapolation& result = report.models[m];
    for (const LengthBucket& range : report.buckets) {
      BucketAccuracy accuracy;
      int64_t correct = 0, refused = 0, longest_refused = 0;
      for (const SentenceRun& run : runs[m]) {
        if (run.tokens < range.low || run.tokens > range.high) continue;
        ++accuracy.sentences;
        correct += run.correct;
        if (!run.runs) {
          ++refused;
          longest_refused = std::max(longest_refused, run.tokens);
        }
      }
      // A bucket partly past the limit is "cannot" as a whole: an accuracy over the sentences
      // that happen to fit would not be the bucket's.
      if (refused > 0) {
        accuracy.cannot = reasons[m].at(longest_refused);
        if (refused < accuracy.sentences) {
          accuracy.cannot += " (" + std::to_string(refused) + " of the bucket's " +
                             std::to_string(accuracy.sentences) + " sentences)";
        }
      } else if (accuracy.sentences > 0) {
        accuracy.correct = correct;
      }
      result.buckets.push_back(std::move(accuracy));
    }
  }
  return report;
}

std::string extrapolation_table(const ExtrapolationReport& report) {
  std::string out = "Accuracy by sentence length, " + report.file + " (" +
                    std::to_string(report.sentences) +
                    " sentences; tokens counted with the template's special tokens)\n";
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {"tokens"};
  for (const ModelExtrapolation& model : report.models) {
    header.push_back(model.name + " (" + model.position_encoding + ")");
  }
  rows.push_back(header);
  for (size_t b = 0; b < report.buckets.size(); ++b) {
    std::vector<std::string> row = {bucket_name(report.buckets[b])};
    for (const ModelExtrapolation& model : report.models) {
      const BucketAccuracy& accuracy = model.buckets[b];
      if (accuracy.sentences == 0) {
        row.push_back("-");
      } else if (!accuracy.correct) {
        row.push_back("cannot");
      } else {
        row.push_back(percent(*accuracy.correct, accuracy.sentences) + " (" +
                      std::to_string(*accuracy.correct) + "/" + std::to_string(accuracy.sentences) +
                      ")");
      }
    }
    rows.push_back(row);
  }
  std::vector<std::string> limits = {"limit"}, trained = {"trained"};
  bool any_trained = false;
  for (const ModelExtrapolation& model : report.models) {
    limits.push_back(model.max_tokens > 0 ? std::to_string(model.max_tokens) : "none");
    trained.push_back(model.training_max_tokens ? std::to_string(*model.training_max_tokens) : "?");
    any_trained = any_trained || model.training_max_tokens;
  }
  rows.push_back(limits);
  if (any_trained) rows.push_back(trained);
  out += render_table(rows);
  out +=
      "limit: the most tokens the model runs (the learned table's rows, else "
      "max_position_embeddings).\n"
      "cannot: the bucket holds sentences past that limit.";
  if (any_trained) out += " trained: the longest training sentence.";
  return out + "\n";
}

std::string extrapolation_json(const ExtrapolationReport& report) {
  using Json = nlohmann::ordered_json;
  Json document;
  document["file"] = report.file;
  document["sentences"] = report.sentences;
  document["bucket_width"] = report.bucket_width;
  document["models"] = Json::array();
  for (const ModelExtrapolation& model : report.models) {
    Json item;
    item["model"] = model.path;
    item["pe"] = model.position_encoding;
    item["max_tokens"] = model.max_tokens > 0 ? Json(model.max_tokens) : Json();
    item["training_max_tokens"] =
        model.training_max_tokens ? Json(*model.training_max_tokens) : Json();
    item["buckets"] = Json::array();
    for (size_t b = 0; b < report.buckets.size(); ++b) {
      const BucketAccuracy& accuracy = model.buckets[b];
      Json bucket;
      bucket["tokens_low"] = report.buckets[b].low;
      bucket["tokens_high"] = report.buckets[b].high;
      bucket["sentences"] = accuracy.sentences;
      bucket["correct"] = accuracy.correct ? Json(*accuracy.correct) : Json();
      bucket["accuracy"] = accuracy.correct && accuracy.sentences > 0
                               ? Json(double(*accuracy.correct) / double(accuracy.sentences))
                               : Json();
      bucket["cannot"] = accuracy.cannot.empty() ? Json() : Json(accuracy.cannot);
      item["buckets"].push_back(bucket);
    }
    document["models"].push_back(item);
  }
  return json_text(document, 1) + "\n";
}

std::string extrapolation_csv(const ExtrapolationReport& report) {
  std::string out =
      "model,pe,max_tokens,training_max_tokens,tokens_low,tokens_high,sentences,correct,"
      "accuracy,cannot\n";
  for (const ModelExtrapolation& model : report.models) {
    for (size_t b = 0; b < report.buckets.size(); ++b) {
      const BucketAccuracy& accuracy = model.buckets[b];
      const bool number = accuracy.correct && accuracy.sentences > 0;
      const std::vector<std::string> fields = {
          model.path,
          model.position_encoding,
          model.max_tokens > 0 ? std::to_string(model.max_tokens) : "",
          model.training_max_tokens ? std::to_string(*model.training_max_tokens) : "",
          std::to_string(report.buckets[b].low),
          std::to_string(report.buckets[b].high),
          std::to_string(accuracy.sentences),
          accuracy.correct ? std::to_string(*accuracy.correct) : "",
          number ? shortest_float(double(*accuracy.correct) / double(accuracy.sentences)) : "",
          accuracy.cannot};
      for (size_t f = 0; f < fields.size(); ++f) {
        if (f) out += ',';
        out += csv_field(fields[f]);
      }
      out += "\n";
    }
  }
  return out;
}

}  // namespace tinyenc::cli::order
