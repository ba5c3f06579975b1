// <tinyenc/tinyenc.h> on top of the pipeline and the corpus runner (every text goes the way
// `tinyenc run` takes it): the standard exceptions of the loaders and the engine become
// tinyenc::Error, bad input told apart from tinyenc's own failures.
#include <tinyenc/bench.h>
#include <tinyenc/options.h>
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
  std::string expected;
  const std::vector<std::string> names = pooling_names();
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return static_cast<Pooling>(i);
    expected += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  }
  throw bad_input("pooling: expected " + expected + ", got '" + name + "'");
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
  Impl(Model::Impl& model, const EmbedOptions& options, Sink sink, Hooks hooks)
      : model(model),
        sink(std::move(sink)),
        hidden_states(options.hidden_states),
        hooks(std::move(hooks)),
        runner(
            model.pipeline, model.corpus_options(options), model.per_token,
            [this](CorpusRecord& record) { give(record); }, window_done(), progress()) {}

  // The hooks, their exceptions passed through as the sink's are.
  CorpusRunner::WindowDone window_done() {
    if (!hooks.window_done) return {};
    return [this] { passing([&] { hooks.window_done(); }); };
  }
  CorpusRunner::ProgressSink progress() {
    if (!hooks.progress) return {};
    return [this](uint64_t texts, int64_t tokens, uint64_t bytes) {
      passing([&] { hooks.progress(texts, tokens, bytes); });
    };
  }

  void give(CorpusRecord& record) {
    Result result = model.result_of(record, hidden_states);
    passing([&] { sink(result); });
  }

  // Runs the caller's `code`; what it throws goes through the runner as SinkThrew.
  template <typename Code>
  void passing(Code&& code) {
    try {
      code();
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
  bool hidden_states;
  Hooks hooks;
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
    // Pooling none is a vector per token (Model::Impl::per_token) over the model's own pooling.
    if (pipeline_options.pooling == Pooling::kNone) pipeline_options.pooling.reset();
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

Model::Stream Model::stream(const EmbedOptions& options, Stream::Sink sink, Stream::Hooks hooks) {
  return guarded([&] {
    return Stream(
        std::make_unique<Stream::Impl>(*impl_, options, std::move(sink), std::move(hooks)));
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

void Model::Stream::add_ids(const std::vector<int32_t>& ids, const std::string& shown) {
  impl_->call([&] { impl_->runner.add_encoding(shown, impl_->model.pipeline.encode_ids(ids)); });
}

StreamStats stream_stats(const Model::Stream& stream) {
  const CorpusStats stats = ModelAccess::impl(stream).runner.stats();
  StreamStats out;
  out.texts = stats.texts;
  out.tokens = stats.tokens;
  out.run_tokens = stats.run_tokens;
  out.computed_tokens = stats.computed_tokens;
  out.chunked_texts = stats.chunked_texts;
  out.chunks = stats.chunks;
  out.bytes = stats.bytes;
  out.tokenize_seconds = stats.tokenize_seconds;
  out.stages.embeddings = stats.stages.embed;
  out.stages.qkv = stats.stages.qkv;
  out.stages.attention = stats.stages.attention;
  out.stages.output_projection = stats.stages.output_projection;
  out.stages.ffn = stats.stages.ffn;
  out.stages.norms = stats.stages.norms;
  out.stages.head = stats.stages.head;
  out.unsorted_32_computed_tokens = stats.unsorted_32_computed_tokens;
  return out;
}

void Model::Stream::set_next_index(size_t index) { impl_->runner.set_next_input(index + 1); }

size_t Model::Stream::buffered() const { return impl_->runner.buffered(); }

std::chrono::steady_clock::time_point Model::Stream::first_buffered_time() const {
  return impl_->runner.first_buffered_time();
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
      if (impl_->per_token) {  // as pooling none gives them: no pooled vector, no head
        output.embedding.clear();
        output.logits.clear();
      }
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

std::string Model::pooling() const {
  if (impl_->per_token) return "none";
  return std::string(pooling_name(impl_->pipeline.encoder().config().pooling));
}

int64_t Model::max_tokens() const { return impl_->pipeline.model().config.max_sequence_length; }

}  // namespace tinyenc
