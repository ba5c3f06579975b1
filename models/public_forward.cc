// <tinyenc/forward.h> on top of the pipeline: its padded forward pass split per input, with the
// per-layer tensors the engine keeps on request.
#include <tinyenc/forward.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "engine/encoder.h"
#include "engine/pe/position_encoding.h"
#include "models/normalize_embedding.h"
#include "models/pipeline.h"
#include "models/public_model_impl.h"

namespace tinyenc {
namespace {

// Sets the pipeline's position offset for one call and puts the old one back.
class OffsetScope {
 public:
  OffsetScope(Pipeline& pipeline, const std::optional<int64_t>& offset)
      : pipeline_(pipeline), saved_(pipeline.position_offset()) {
    if (offset) pipeline_.set_position_offset(*offset);
  }
  ~OffsetScope() { pipeline_.set_position_offset(saved_); }
  OffsetScope(const OffsetScope&) = delete;
  OffsetScope& operator=(const OffsetScope&) = delete;

 private:
  Pipeline& pipeline_;
  int64_t saved_;
};

// Sequence b of a padded pass, unpadded.
ForwardOutput split_padded(const EncoderOutput& output, size_t b, size_t tokens) {
  const size_t d = static_cast<size_t>(output.d_model);
  const size_t seq = static_cast<size_t>(output.seq);
  const size_t batch = static_cast<size_t>(output.batch);
  ForwardOutput result;
  if (!output.pooled.empty()) {
    result.pooled.assign(output.pooled.begin() + b * d, output.pooled.begin() + (b + 1) * d);
  }
  if (!output.logits.empty()) {
    const size_t labels = output.logits.size() / batch;
    result.logits.assign(output.logits.begin() + b * labels,
                         output.logits.begin() + (b + 1) * labels);
    if (!output.probabilities.empty()) {
      result.probabilities.assign(output.probabilities.begin() + b * labels,
                                  output.probabilities.begin() + (b + 1) * labels);
    }
    result.label =
        std::max_element(result.logits.begin(), result.logits.end()) - result.logits.begin();
  }
  const auto rows = [&](const std::vector<float>& values) {
    const auto begin = values.begin() + static_cast<std::ptrdiff_t>(b * seq * d);
    return std::vector<float>(begin, begin + static_cast<std::ptrdiff_t>(tokens * d));
  };
  result.last_hidden_state = rows(output.last_hidden);
  for (const std::vector<float>& layer : output.layer_hidden) {
    result.hidden_states.push_back(rows(layer));
  }
  const size_t heads = static_cast<size_t>(output.heads);
  for (const std::vector<float>& layer : output.attention) {
    std::vector<float> probabilities(heads * tokens * tokens);
    for (size_t h = 0; h < heads; ++h) {
      for (size_t q = 0; q < tokens; ++q) {
        const float* row = layer.data() + ((b * heads + h) * seq + q) * seq;
        std::copy(row, row + tokens, probabilities.data() + (h * tokens + q) * tokens);
      }
    }
    result.attentions.push_back(std::move(probabilities));
  }
  return result;
}

}  // namespace

Model load_for_forward(const std::string& folder, const ForwardLoadOptions& options) {
  return load_model(folder, options);
}

std::vector<ForwardOutput> forward(Model& model, const std::vector<Encoding>& batch,
                                   const ForwardRequest& request) {
  return guarded([&] {
    auto& impl = ModelAccess::impl(model);
    Pipeline& pipeline = impl.pipeline;
    const OffsetScope offset(pipeline, request.position_offset);
    for (size_t i = 0; i < batch.size(); ++i) {
      if (batch[i].size() == 0) throw bad_input("input " + std::to_string(i + 1) + ": no tokens");
    }
    std::vector<ForwardOutput> outputs;
    try {
      if (request.output_hidden_states || request.output_attentions) {
        std::vector<const Encoding*> pointers;
        for (const Encoding& encoding : batch) pointers.push_back(&encoding);
        ForwardOptions options;
        options.layer_hidden_states = request.output_hidden_states;
        options.attention_probabilities = request.output_attentions;
        const EncoderOutput output = pipeline.forward(pointers, options);
        for (size_t b = 0; b < batch.size(); ++b) {
          outputs.push_back(split_padded(output, b, batch[b].size()));
          if (pipeline.model().config.normalize_embeddings && !outputs.back().pooled.empty()) {
            normalize_embedding(outputs.back().pooled);
          }
        }
      } else {
        for (TextOutput& text : pipeline.run(batch, true)) {
          ForwardOutput output;
          output.pooled = std::move(text.embedding);
          output.logits = std::move(text.logits);
          output.probabilities = std::move(text.probabilities);
          output.label = text.label;
          output.last_hidden_state = std::move(text.hidden);
          outputs.push_back(std::move(output));
        }
      }
    } catch (const NonFiniteOutputError& e) {
      // The weights overflow float32 on this input: the folder's problem, not tinyenc's.
      throw bad_input(pipeline.dir().string() + ": input " +
                      std::to_string(static_cast<size_t>(e.sequence) + 1) + ": " + e.what());
    }
    if (impl.options.normalize) {
      for (ForwardOutput& output : outputs) {
        if (!output.pooled.empty()) normalize_embedding(output.pooled);
      }
    }
    return outputs;
  });
}

void check(const Model& model, Encoding& encoding, const std::string& what) {
  guarded([&] { ModelAccess::impl(model).pipeline.check(encoding, what); });
}

void set_position_offset(Model& model, int64_t position_offset) {
  guarded([&] { ModelAccess::impl(model).pipeline.set_position_offset(position_offset); });
}

int64_t position_offset(const Model& model) {
  return ModelAccess::impl(model).pipeline.position_offset();
}

void validate_position_offset(int64_t position_offset) {
  guarded([&] { check_position_offset(position_offset); });
}

std::string position_encoding(const Model& model) {
  return std::string(position_encoding_name(
      ModelAccess::impl(model).pipeline.model().config.encoder.position_encoding.kind));
}

bool has_position_table(const Model& model) {
  return has_position_table(
      ModelAccess::impl(model).pipeline.model().config.encoder.position_encoding.kind);
}

int64_t num_layers(const Model& model) {
  return ModelAccess::impl(model).pipeline.model().config.encoder.layers;
}

int64_t attention_heads(const Model& model) {
  return ModelAccess::impl(model).pipeline.model().config.encoder.heads;
}

std::string folder(const Model& model) { return ModelAccess::impl(model).pipeline.dir().string(); }

std::string label_name(const Model& model, int64_t id) {
  return ModelAccess::impl(model).pipeline.label_name(id);
}

bool has_tokenizer(const Model& model) { return ModelAccess::impl(model).pipeline.has_tokenizer(); }

}  // namespace tinyenc
