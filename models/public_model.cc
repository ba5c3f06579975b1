// <tinyenc/tinyenc.h> on top of the pipeline: the standard exceptions of the loaders and the
// engine become tinyenc::Error, bad input told apart from tinyenc's own failures.
#include <tinyenc/tinyenc.h>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <new>
#include <optional>
#include <stdexcept>
#include <utility>

#include "engine/threads.h"
#include "models/normalize_embedding.h"
#include "models/pipeline.h"
#include "models/public_model_impl.h"

namespace tinyenc {
namespace {

std::optional<Pooling> parse_pooling(const std::string& name) {
  if (name.empty()) return std::nullopt;
  for (Pooling pooling : {Pooling::kCls, Pooling::kMean, Pooling::kPooler, Pooling::kNone}) {
    if (pooling_name(pooling) == name) return pooling;
  }
  throw bad_input("pooling: expected cls, mean, pooler or none, got '" + name + "'");
}

void check_threads(int threads) {
  const int most = thread_limit();
  if (threads < 0 || threads > most) {
    throw bad_input("threads " + std::to_string(threads) + ": expected 0 (the default) to " +
                    std::to_string(most) + " (4 threads per CPU)");
  }
}

}  // namespace

Error::Error(Kind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}

Error bad_input(const std::string& message) { return Error(Error::Kind::kBadInput, message); }

Model::Model(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Model::Model(Model&&) noexcept = default;
Model& Model::operator=(Model&&) noexcept = default;
Model::~Model() = default;

Model Model::load(const std::string& folder, const Options& options) {
  ForwardLoadOptions load_options;
  load_options.options = options;
  return load_model(folder, load_options);
}

Model load_model(const std::string& folder, const ForwardLoadOptions& load_options) {
  return guarded([&] {
    const Options& options = load_options.options;
    check_threads(options.threads);
    PipelineOptions pipeline_options;
    pipeline_options.pooling = parse_pooling(options.pooling);
    pipeline_options.truncate = options.truncate;
    pipeline_options.dtype = options.dtype;
    pipeline_options.truncate_hint = load_options.truncate_hint;
    pipeline_options.require_tokenizer = load_options.require_tokenizer;
    pipeline_options.tokenizer_hint = load_options.tokenizer_hint;
    pipeline_options.position_offset = options.position_offset;
    Model model = ModelAccess::make(folder, pipeline_options, options);
    set_threads(options.threads);
    return model;
  });
}

std::vector<std::vector<float>> Model::embed(const std::vector<std::string>& texts) {
  return guarded([&] {
    if (impl_->pipeline.encoder().config().pooling == Pooling::kNone) {
      throw bad_input(impl_->pipeline.dir().string() +
                      ": pooling none gives no embedding (choose cls, mean or pooler)");
    }
    std::vector<std::vector<float>> embeddings;
    for (TextOutput& output : impl_->run_texts(texts)) {
      embeddings.push_back(std::move(output.embedding));
    }
    return embeddings;
  });
}

std::vector<Classification> Model::classify(const std::vector<std::string>& texts) {
  return guarded([&] {
    if (impl_->pipeline.model().config.encoder.num_labels == 0) {
      throw bad_input(impl_->pipeline.dir().string() + ": no classification head to classify with");
    }
    if (impl_->pipeline.encoder().config().pooling == Pooling::kNone) {
      throw bad_input(impl_->pipeline.dir().string() +
                      ": pooling none leaves the classification head out");
    }
    std::vector<Classification> classifications;
    for (TextOutput& output : impl_->run_texts(texts)) {
      classifications.push_back({impl_->pipeline.label_name(output.label), output.label,
                                 std::move(output.probabilities)});
    }
    return classifications;
  });
}

std::vector<Output> Model::forward(const std::vector<std::vector<int32_t>>& ids) {
  return guarded([&] {
    std::vector<Encoding> encodings;
    for (const std::vector<int32_t>& sequence : ids) {
      Encoding encoding;
      for (int32_t id : sequence) encoding.append("", id, 0, TokenSource::kFirst, {});
      impl_->pipeline.check(encoding, "ids " + std::to_string(encodings.size() + 1));
      encodings.push_back(std::move(encoding));
    }
    std::vector<Output> outputs;
    for (TextOutput& output : impl_->run(std::move(encodings), true)) {
      outputs.push_back(
          {std::move(output.embedding), std::move(output.logits), std::move(output.hidden)});
    }
    return outputs;
  });
}

int64_t Model::dimension() const { return impl_->pipeline.model().config.encoder.d_model; }

const std::vector<std::string>& Model::labels() const {
  return impl_->pipeline.model().config.labels;
}

std::string Model::dtype() const {
  return std::string(compute_dtype_name(impl_->pipeline.model().config.encoder.dtype));
}

int64_t Model::max_tokens() const { return impl_->pipeline.model().config.max_sequence_length; }

}  // namespace tinyenc
