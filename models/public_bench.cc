// <tinyenc/bench.h>: random-weight presets (engine/random_encoder.h) and an encoder alone behind
// a tinyenc::Model, and the forward pass timed per stage (engine/layers/stage_times.h).
#include <tinyenc/bench.h>

#include <chrono>
#include <optional>
#include <utility>

#include "engine/encoder.h"
#include "engine/random_encoder.h"
#include "models/dtype_choice.h"
#include "models/forward_memory.h"
#include "models/pipeline.h"
#include "models/public_model_impl.h"

namespace tinyenc {
namespace {

PipelineOptions pipeline_options(const Options& options) {
  if (!options.pooling.empty()) {
    throw bad_input("pooling '" + options.pooling +
                    "': an encoder loaded alone pools as its "
                    "config says (leave Options::pooling empty)");
  }
  PipelineOptions pipeline_options;
  pipeline_options.truncate = options.truncate;
  pipeline_options.truncate_hint = "set Options::truncate to cut it";
  pipeline_options.position_offset = options.position_offset;
  return pipeline_options;
}

// The model behind `name`, its encoder built once the threads are set (oneDNN sizes its kernels
// to the thread count when they are made).
Model start(const std::string& name, LoadedModel model, const Options& options) {
  const PipelineOptions pipeline = pipeline_options(options);
  set_threads(options.threads);
  return ModelAccess::make(name, std::move(model), pipeline, options);
}

// The longest sequence a preset's position encoding allows; 0: no limit.
int64_t longest_sequence(const EncoderConfig& config) {
  const PositionEncodingConfig& pe = config.position_encoding;
  if (!has_position_table(pe.kind)) return 0;
  return pe.max_positions - (pe.padding_idx >= 0 ? pe.padding_idx + 1 : 0);
}

EncoderConfig shape_of(const ModelInfo& model) {
  EncoderConfig config;
  config.heads = model.heads;
  config.d_model = model.d_model;
  config.ffn_dim = model.ffn_dim;
  return config;
}

}  // namespace

std::vector<std::string> random_presets() { return {"tiny", "mini", "small", "base"}; }

Model random_model(const std::string& preset, const std::string& position_encoding,
                   const Options& options, uint32_t seed) {
  return guarded([&] {
    check_threads(options.threads);
    std::optional<EncoderConfig> config = preset_config(preset);
    if (!config) {
      throw bad_input("preset: expected tiny, mini, small or base, got '" + preset + "'");
    }
    const std::optional<PositionEncodingKind> kind = parse_position_encoding(position_encoding);
    if (!kind) throw bad_input("position encoding: unknown kind '" + position_encoding + "'");
    config->position_encoding.kind = *kind;
    LoadedModel model;
    model.weights = random_encoder_weights(*config, seed);
    const DtypeChoice choice = choose_dtype(options.dtype, std::nullopt);
    config->dtype = choice.dtype;
    model.dtype_reason = choice.reason;
    model.config.family = "random";
    model.config.max_sequence_length = longest_sequence(*config);
    model.config.encoder = *config;
    return start(preset, std::move(model), options);
  });
}

Model load_encoder(const std::string& folder, const Options& options) {
  return guarded([&] {
    check_threads(options.threads);
    return start(folder, load_user_model(folder, options.dtype), options);
  });
}

ForwardTiming time_forward(Model& model, const std::vector<int32_t>& ids, int64_t batch) {
  return guarded([&] {
    const int64_t count = static_cast<int64_t>(ids.size());
    if (batch < 1 || count == 0 || count % batch != 0) {
      throw bad_input("time_forward: " + std::to_string(count) + " ids do not make " +
                      std::to_string(batch) + " sequences of equal length");
    }
    Pipeline& pipeline = ModelAccess::impl(model).pipeline;
    const LoadedModel& loaded = pipeline.model();
    const int64_t vocab = loaded.config.encoder.vocab_size;
    for (int64_t i = 0; i < count; ++i) {
      if (ids[i] < 0 || ids[i] >= vocab) {
        throw bad_input("time_forward: id " + std::to_string(ids[i]) + " (position " +
                        std::to_string(i) + ") is outside the vocabulary [0, " +
                        std::to_string(vocab) + ")");
      }
    }
    const int64_t seq = count / batch;
    const int64_t limit = loaded.config.max_sequence_length;
    if (limit > 0 && seq > limit) {
      throw bad_input("time_forward: " + std::to_string(seq) + " tokens, longer than the model's " +
                      std::to_string(limit));
    }
    EncoderInput input{batch, seq, ids.data(), nullptr, nullptr};
    input.position_offset = pipeline.position_offset();
    StageTimes times;
    ForwardOptions forward_options;
    forward_options.times = &times;
    const auto start = std::chrono::steady_clock::now();
    pipeline.encoder().forward(input, forward_options);
    ForwardTiming timing;
    timing.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    timing.embeddings = times.embed;
    timing.qkv = times.qkv;
    timing.attention = times.attention;
    timing.output_projection = times.output_projection;
    timing.ffn = times.ffn;
    timing.norms = times.norms;
    timing.head = times.head;
    return timing;
  });
}

std::string matmul_implementation(const Model& model) {
  return ModelAccess::impl(model).pipeline.encoder().matmul_implementation();
}

double forward_memory_bytes(const ModelInfo& model, int64_t batch, int64_t tokens) {
  return forward_bytes(shape_of(model), batch, tokens);
}

void check_forward_memory(const ModelInfo& model, int64_t batch, int64_t tokens,
                          const std::string& what) {
  guarded([&] { check_forward_memory(shape_of(model), batch, tokens, what); });
}

}  // namespace tinyenc
