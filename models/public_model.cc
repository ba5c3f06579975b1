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
#include <thread>
#include <utility>

#include "models/corpus_runner.h"
#include "models/pipeline.h"

namespace tinyenc {
namespace {

// Runs `work`, turning what it throws into Error. The CLI sorts the same exceptions the same
// way into its exit codes (2: bad input, 1: failure).
template <typename Work>
auto guarded(Work&& work) -> decltype(work()) {
  try {
    return work();
  } catch (const Error&) {
    throw;
  } catch (const std::invalid_argument& e) {
    throw Error(Error::Kind::kBadInput, e.what());
  } catch (const std::out_of_range& e) {
    throw Error(Error::Kind::kBadInput, e.what());
  } catch (const std::filesystem::filesystem_error& e) {
    throw Error(Error::Kind::kBadInput, e.path1().string() + ": " + e.code().message());
  } catch (const std::bad_alloc&) {
    throw Error(Error::Kind::kInternal, "out of memory");
  } catch (const std::exception& e) {
    throw Error(Error::Kind::kInternal, e.what());
  }
}

Error bad_input(const std::string& message) { return Error(Error::Kind::kBadInput, message); }

std::optional<Pooling> parse_pooling(const std::string& name) {
  if (name.empty()) return std::nullopt;
  for (Pooling pooling : {Pooling::kCls, Pooling::kMean, Pooling::kPooler, Pooling::kNone}) {
    if (pooling_name(pooling) == name) return pooling;
  }
  throw bad_input("pooling: expected cls, mean, pooler or none, got '" + name + "'");
}

void check_threads(int threads) {
  // Past the CPUs more threads only time-slice the same cores; far past them the OpenMP
  // runtime fails to create its pool.
  const int most = 4 * static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (threads < 0 || threads > most) {
    throw bad_input("threads " + std::to_string(threads) + ": expected 0 (the default) to " +
                    std::to_string(most) + " (4 threads per CPU)");
  }
}

}  // namespace

Error::Error(Kind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}

struct Model::Impl {
  Impl(const std::string& folder, const PipelineOptions& pipeline_options, const Options& options)
      : options(options), pipeline(folder, pipeline_options) {}

  // The runner's options for `embed`: its numbers, Options::normalize, and the rule for long
  // texts ("" is Options::truncate's).
  CorpusOptions corpus_options(const EmbedOptions& embed) const {
    CorpusOptions corpus;
    corpus.window = embed.window;
    corpus.max_batch_tokens = embed.max_batch_tokens;
    corpus.max_batch_texts = embed.max_batch_texts;
    corpus.normalize = options.normalize;
    corpus.long_texts = embed.long_texts.empty()
                            ? (options.truncate ? LongTexts::kTruncate : LongTexts::kError)
                            : parse_long_texts(embed.long_texts, "long_texts");
    corpus.overlap = embed.overlap;
    return corpus;
  }

  void require_pooled(const std::string& what) {
    if (pipeline.encoder().config().pooling == Pooling::kNone) {
      throw bad_input(pipeline.dir().string() + ": pooling none " + what);
    }
  }

  Result result_of(CorpusRecord& record) const {
    TextOutput& output = record.output;
    Result result;
    result.index = record.input - 1;
    result.embedding = std::move(output.embedding);
    result.logits = std::move(output.logits);
    result.probabilities = std::move(output.probabilities);
    result.label_id = output.label;
    if (output.label >= 0) result.label = pipeline.label_name(output.label);
    result.tokens = static_cast<int64_t>(output.encoding.size());
    result.chunks = record.chunks;
    return result;
  }

  // The texts through the corpus runner, every result in input order.
  std::vector<Result> run(const std::vector<std::string>& texts, const EmbedOptions& embed) {
    std::vector<Result> results;
    results.reserve(texts.size());
    CorpusRunner runner(pipeline, corpus_options(embed), false,
                        [&](CorpusRecord& record) { results.push_back(result_of(record)); });
    for (const std::string& text : texts) runner.add(text);
    runner.flush();
    return results;
  }

  Options options;
  Pipeline pipeline;
};

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
  return guarded([&] {
    check_threads(options.threads);
    PipelineOptions pipeline_options;
    pipeline_options.pooling = parse_pooling(options.pooling);
    pipeline_options.truncate = options.truncate;
    pipeline_options.dtype = options.dtype;
    // A chunk's positions would not be the text's: no chunks with a position offset.
    pipeline_options.truncate_hint =
        options.position_offset > 0
            ? "set Options::truncate to cut it"
            : "set Options::truncate to cut it or EmbedOptions::long_texts \"chunk\" to split it";
    pipeline_options.position_offset = options.position_offset;
    auto impl = std::make_unique<Impl>(folder, pipeline_options, options);
    if (options.threads > 0) set_threads(options.threads);
    return Model(std::move(impl));
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
