// <tinyenc/tinyenc.h> on top of the pipeline and the corpus runner (every text goes the way
// `tinyenc run` takes it): the standard exceptions of the loaders and the engine become
// tinyenc::Error, bad input told apart from tinyenc's own failures.
#include <tinyenc/tinyenc.h>
#include <algorithm>
#include <exception>
#include <filesystem>
#include <new>
#include <optional>
#include <stdexcept>
#include <utility>

#include "engine/threads.h"
#include "models/corpus_runner.h"
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

}  // namespace

Error::Error(Kind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}

Error bad_input(const std::string& message) { return Error(Error::Kind::kBadInput, message); }

void check_threads(int threads) {
  const int most = thread_limit();
  if (threads < 0 || threads > most) {
    throw bad_input("threads " + std::to_string(threads) + ": expected 0 (the default) to " +
                    std::to_string(most) + " (4 threads per CPU)");
  }
}

namespace {

// Thrown through the runner when a Stream's sink throws, so that guarded() leaves the caller's
// own exception alone (it derives from nothing guarded() catches).
struct SinkThrew {};

}  // namespace

struct Model::Stream::Impl {
  Impl(Model::Impl& model, const CorpusOptions& options, Sink sink)
      : model(model),
        sink(std::move(sink)),
        runner(model.pipeline, options, false, [this](CorpusRecord& record) { give(record); }) {}

  void give(CorpusRecord& record) {
    Result result = model.result_of(record);
    try {
      sink(result);
    } catch (...) {
      sink_error = std::current_exception();
      throw SinkThrew{};
    }
  }

  // `work` guarded, the sink's own exception rethrown as it was.
  template <typename Work>
  void call(Work&& work) {
    try {
      guarded(work);
    } catch (const SinkThrew&) {
      std::rethrow_exception(std::exchange(sink_error, nullptr));
    }
  }

  Model::Impl& model;
  Sink sink;
  std::exception_ptr sink_error;
  CorpusRunner runner;
};

Model::Model(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Model::Model(Model&&) noexcept = default;
Model& Model::operator=(Model&&) noexcept = default;
Model::~Model() = default;

Model Model::load(const std::string& folder, const Options& options) {
  ForwardLoadOptions load_options;
  load_options.options = options;
  // A chunk's positions would not be the text's: no chunks with a position offset.
  load_options.truncate_hint =
      options.position_offset > 0
          ? "set Options::truncate to cut it"
          : "set Options::truncate to cut it or EmbedOptions::long_texts \"chunk\" to split it";
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
  return embed(texts, EmbedOptions());
}

std::vector<Classification> Model::classify(const std::vector<std::string>& texts) {
  return classify(texts, EmbedOptions());
}

std::vector<std::vector<float>> Model::embed(const std::vector<std::string>& texts,
                                             const EmbedOptions& options) {
  return guarded([&] {
    impl_->require_pooled("gives no embedding (choose cls, mean or pooler)");
    std::vector<std::vector<float>> embeddings;
    for (Result& result : impl_->run(texts, options)) {
      embeddings.push_back(std::move(result.embedding));
    }
    return embeddings;
  });
}

std::vector<Classification> Model::classify(const std::vector<std::string>& texts,
                                            const EmbedOptions& options) {
  return guarded([&] {
    if (impl_->pipeline.model().config.encoder.num_labels == 0) {
      throw bad_input(impl_->pipeline.dir().string() + ": no classification head to classify with");
    }
    impl_->require_pooled("leaves the classification head out");
    std::vector<Classification> classifications;
    for (Result& result : impl_->run(texts, options)) {
      classifications.push_back(
          {std::move(result.label), result.label_id, std::move(result.probabilities)});
    }
    return classifications;
  });
}

std::vector<Model::Result> Model::run(const std::vector<std::string>& texts,
                                      const EmbedOptions& options) {
  return guarded([&] {
    impl_->require_pooled("gives no embedding (choose cls, mean or pooler)");
    return impl_->run(texts, options);
  });
}

Model::Stream Model::stream(const EmbedOptions& options, Stream::Sink sink) {
  return guarded([&] {
    impl_->require_pooled("gives no embedding (choose cls, mean or pooler)");
    return Stream(
        std::make_unique<Stream::Impl>(*impl_, impl_->corpus_options(options), std::move(sink)));
  });
}

Model::Stream::Stream(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Model::Stream::Stream(Stream&&) noexcept = default;
Model::Stream& Model::Stream::operator=(Stream&&) noexcept = default;
Model::Stream::~Stream() = default;

void Model::Stream::add(const std::string& text) {
  impl_->call([&] { impl_->runner.add(text); });
}

void Model::Stream::flush() {
  impl_->call([&] { impl_->runner.flush(); });
}

std::vector<Output> Model::forward(const std::vector<std::vector<int32_t>>& ids) {
  return guarded([&] {
    // Raw ids run as texts do (sorted and packed in windows), their hidden states kept.
    CorpusOptions corpus;
    corpus.normalize = impl_->options.normalize;
    corpus.keep_hidden = true;
    std::vector<Output> outputs;
    outputs.reserve(ids.size());
    CorpusRunner runner(impl_->pipeline, corpus, false, [&](CorpusRecord& record) {
      TextOutput& output = record.output;
      outputs.push_back(
          {std::move(output.embedding), std::move(output.logits), std::move(output.hidden)});
    });
    for (size_t i = 0; i < ids.size(); ++i) {
      Encoding encoding;
      for (int32_t id : ids[i]) encoding.append("", id, 0, TokenSource::kFirst, {});
      impl_->pipeline.check(encoding, "ids " + std::to_string(i + 1));
      runner.add_encoding("", std::move(encoding));
    }
    runner.flush();
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
