#include "order/attention_distance.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "json_text.h"
#include "order/experiments.h"
#include "order/report.h"
#include "order/table_text.h"

namespace tinyenc::cli::order {
namespace {

// Sentences per forward pass (padded: attention probabilities need the padded layout).
constexpr size_t kBatch = 16;

void add_scaled(DistanceStatistics& sum, const DistanceStatistics& part, double scale) {
  sum.mean_distance += part.mean_distance * scale;
  sum.same += part.same * scale;
  sum.plus_minus_1 += part.plus_minus_1 * scale;
  sum.plus_minus_2 += part.plus_minus_2 * scale;
  for (size_t k = 0; k < sum.by_offset.size(); ++k) sum.by_offset[k] += part.by_offset[k] * scale;
}

DistanceStatistics scaled(const DistanceStatistics& part, double scale) {
  DistanceStatistics result;
  add_scaled(result, part, scale);
  return result;
}

std::string fixed(double value, int decimals) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

std::vector<std::string> statistics_cells(const DistanceStatistics& statistics) {
  return {fixed(statistics.mean_distance, 3), fixed(statistics.same, 3),
          fixed(statistics.plus_minus_1, 3), fixed(statistics.plus_minus_2, 3)};
}

nlohmann::ordered_json statistics_json(const DistanceStatistics& statistics) {
  nlohmann::ordered_json item;
  item["mean_distance"] = statistics.mean_distance;
  item["same"] = statistics.same;
  item["plus_minus_1"] = statistics.plus_minus_1;
  item["plus_minus_2"] = statistics.plus_minus_2;
  item["by_offset"] = statistics.by_offset;
  return item;
}

// Adds probability p of query i on key j = i + offset.
void add_pair(double p, int64_t offset, DistanceStatistics& sum) {
  const int64_t distance = std::abs(offset);
  sum.mean_distance += p * static_cast<double>(distance);
  if (distance == 0) sum.same += p;
  if (distance == 1) sum.plus_minus_1 += p;
  if (distance == 2) sum.plus_minus_2 += p;
  if (distance <= kProfileReach) sum.by_offset[static_cast<size_t>(offset + kProfileReach)] += p;
}

}  // namespace

void add_attention_rows(const float* probabilities, int64_t tokens, int64_t row_stride,
                        DistanceStatistics& sum) {
  for (int64_t i = 0; i < tokens; ++i) {
    const float* row = probabilities + i * row_stride;
    for (int64_t j = 0; j < tokens; ++j) add_pair(row[j], j - i, sum);
  }
}

void add_uniform_rows(int64_t tokens, DistanceStatistics& sum) {
  const double p = 1.0 / static_cast<double>(tokens);
  for (int64_t i = 0; i < tokens; ++i) {
    for (int64_t j = 0; j < tokens; ++j) add_pair(p, j - i, sum);
  }
}

std::vector<ModelAttentionDistance> measure_attention_distance(
    const std::vector<std::filesystem::path>& models, const std::vector<Sentence>& sentences,
    const std::string& dtype, int threads) {
  const std::vector<std::string> names = model_names(models);
  const bool need_tokenizer =
      std::any_of(sentences.begin(), sentences.end(), [](const Sentence& s) { return !s.ids; });
  std::vector<ModelAttentionDistance> results;
  for (size_t m = 0; m < models.size(); ++m) {
    MeasuredModel model(models[m], need_tokenizer, dtype, threads);
    std::vector<Encoding> encodings;
    for (const Sentence& sentence : sentences) encodings.push_back(model.encode(sentence));

    ModelAttentionDistance result;
    result.path = models[m].string();
    result.name = names[m];
    result.position_encoding = model.position_encoding();
    result.layers = model.layers();
    result.sentences = sentences.size();
    for (size_t begin = 0; begin < encodings.size(); begin += kBatch) {
      const size_t end = std::min(encodings.size(), begin + kBatch);
      std::vector<const Encoding*> batch;
      for (size_t s = begin; s < end; ++s) batch.push_back(&encodings[s]);
      const std::vector<ForwardOutput> output = model.forward(batch, true);
      result.heads = model.heads();
      result.per_head.resize(static_cast<size_t>(result.layers * result.heads));
      for (size_t s = begin; s < end; ++s) {
        const int64_t tokens = static_cast<int64_t>(encodings[s].size());
        result.queries += static_cast<size_t>(tokens);
        add_uniform_rows(tokens, result.uniform);
        for (int64_t layer = 0; layer < result.layers; ++layer) {
          const std::vector<float>& attention =
              output[s - begin].attentions[static_cast<size_t>(layer)];
          for (int64_t head = 0; head < result.heads; ++head) {
            const float* matrix = attention.data() + (head * tokens) * tokens;
            add_attention_rows(matrix, tokens, tokens,
                               result.per_head[static_cast<size_t>(layer * result.heads + head)]);
          }
        }
      }
    }
    const double scale = 1.0 / static_cast<double>(result.queries);
    for (DistanceStatistics& statistics : result.per_head) statistics = scaled(statistics, scale);
    result.uniform = scaled(result.uniform, scale);
    results.push_back(std::move(result));
  }
  return results;
}

std::string attention_distance_table(const std::vector<ModelAttentionDistance>& models) {
  std::string out;
  for (const ModelAttentionDistance& model : models) {
    out += model.name + " (pe " + model.position_encoding + "): " + std::to_string(model.layers) +
           " layers x " + std::to_string(model.heads) + " heads, " +
           std::to_string(model.sentences) + " sentence(s), " + std::to_string(model.queries) +
           " query tokens\n";
    std::vector<std::vector<std::string>> rows = {
        {"layer", "head", "mean |i-j|", "same", "\u00b11", "\u00b12"}};
    for (int64_t layer = 0; layer < model.layers; ++layer) {
      DistanceStatistics layer_mean;
      for (int64_t head = 0; head < model.heads; ++head) {
        const DistanceStatistics& statistics =
            model.per_head[static_cast<size_t>(layer * model.heads + head)];
        add_scaled(layer_mean, statistics, 1.0 / static_cast<double>(model.heads));
        std::vector<std::string> row = {std::to_string(layer + 1), std::to_string(head + 1)};
        for (std::string& cell : statistics_cells(statistics)) row.push_back(std::move(cell));
        rows.push_back(std::move(row));
      }
      std::vector<std::string> row = {std::to_string(layer + 1), "mean"};
      for (std::string& cell : statistics_cells(layer_mean)) row.push_back(std::move(cell));
      rows.push_back(std::move(row));
    }
    std::vector<std::string> row = {"uniform", ""};
    for (std::string& cell : statistics_cells(model.uniform)) row.push_back(std::move(cell));
    rows.push_back(std::move(row));
    out += render_table(rows) + "\n";
  }
  out +=
      "mean |i-j|: the distance from each query token to the keys, weighted by attention; same, "
      "\u00b11, \u00b12:\n"
      "the share of attention on the token itself, its neighbours, the tokens two away. Means "
      "over every\n"
      "query token, the template's special tokens included. uniform: the same for attention "
      "spread evenly\n"
      "over each sentence ((n\u00b2 - 1) / 3n for n tokens): what a head that cannot tell near "
      "from far\n"
      "shows on average.\n";
  return out;
}

std::string attention_distance_json(const std::vector<ModelAttentionDistance>& models) {
  using Json = nlohmann::ordered_json;
  Json document;
  std::vector<int64_t> offsets;
  for (int64_t offset = -kProfileReach; offset <= kProfileReach; ++offset) {
    offsets.push_back(offset);
  }
  document["offsets"] = offsets;
  document["models"] = Json::array();
  for (const ModelAttentionDistance& model : models) {
    Json item;
    item["model"] = model.path;
    item["pe"] = model.position_encoding;
    item["layers"] = model.layers;
    item["heads"] = model.heads;
    item["sentences"] = model.sentences;
    item["query_tokens"] = model.queries;
    item["uniform"] = statistics_json(model.uniform);
    item["per_head"] = Json::array();
    for (int64_t layer = 0; layer < model.layers; ++layer) {
      for (int64_t head = 0; head < model.heads; ++head) {
        Json entry;
        entry["layer"] = layer + 1;
        entry["head"] = head + 1;
        const Json statistics =
            statistics_json(model.per_head[static_cast<size_t>(layer * model.heads + head)]);
        for (const auto& [key, value] : statistics.items()) entry[key] = value;
        item["per_head"].push_back(entry);
      }
    }
    document["models"].push_back(item);
  }
  return json_text(document, 1) + "\n";
}

std::string attention_distance_csv(const std::vector<ModelAttentionDistance>& models) {
  std::string out = "model,pe,layer,head,mean_distance,same,plus_minus_1,plus_minus_2\n";
  const auto line = [&](const ModelAttentionDistance& model, const std::string& layer,
                        const std::string& head, const DistanceStatistics& statistics) {
    const std::vector<std::string> fields = {model.path,
                                             model.position_encoding,
                                             layer,
                                             head,
                                             shortest_float(statistics.mean_distance),
                                             shortest_float(statistics.same),
                                             shortest_float(statistics.plus_minus_1),
                                             shortest_float(statistics.plus_minus_2)};
    for (size_t f = 0; f < fields.size(); ++f) {
      if (f) out += ',';
      out += csv_field(fields[f]);
    }
    out += "\n";
  };
  for (const ModelAttentionDistance& model : models) {
    for (int64_t layer = 0; layer < model.layers; ++layer) {
      for (int64_t head = 0; head < model.heads; ++head) {
        line(model, std::to_string(layer + 1), std::to_string(head + 1),
             model.per_head[static_cast<size_t>(layer * model.heads + head)]);
      }
    }
    line(model, "uniform", "", model.uniform);
  }
  return out;
}

}  // namespace tinyenc::cli::order
