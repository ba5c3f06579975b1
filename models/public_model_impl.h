// What every part of the public library (<tinyenc/...>) shares behind tinyenc::Model: the
// pipeline it holds, the corpus runner every text goes through, and the one way the library's
// errors become tinyenc::Error. Private: only models/public_*.cc include it.
#pragma once

#include <tinyenc/forward.h>
#include <tinyenc/tinyenc.h>

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "models/corpus_runner.h"
#include "models/normalize_embedding.h"
#include "models/pipeline.h"

namespace tinyenc {

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

Error bad_input(const std::string& message);

// Throws Error kBadInput unless 0 <= threads <= thread_limit() (Options::threads).
void check_threads(int threads);
// Model::load, and load_for_forward (<tinyenc/forward.h>) with its tokenizer and hint options.
Model load_model(const std::string& folder, const ForwardLoadOptions& options);

struct Model::Impl {
  Impl(const std::string& folder, const PipelineOptions& pipeline_options, const Options& options)
      : options(options), pipeline(folder, pipeline_options), per_token(per_token_of(options)) {}
  // A model loaded by other means (random weights, an encoder alone): no tokenizer.
  Impl(const std::string& name, LoadedModel model, const PipelineOptions& pipeline_options,
       const Options& options)
      : options(options),
        pipeline(name, std::move(model), pipeline_options),
        per_token(per_token_of(options)) {}

  // Pooling none, asked for or the model's own: a vector per token. Asked for, the pipeline keeps
  // the model's pooling underneath (load_model), so that a classification head still labels.
  bool per_token_of(const Options& asked) const {
    return asked.pooling == "none" || pipeline.encoder().config().pooling == Pooling::kNone;
  }

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
                            : parse_long_texts(embed.long_texts, embed.names.long_texts);
    corpus.overlap = embed.overlap;
    corpus.pair = embed.pair;
    corpus.keep_hidden = embed.hidden_states || per_token;
    corpus.names.long_texts = embed.names.long_texts;
    corpus.names.overlap = embed.names.overlap;
    corpus.names.position_offset = embed.names.position_offset;
    return corpus;
  }

  void require_pooled(const std::string& what) const {
    if (per_token) {
      throw bad_input(pipeline.dir().string() + ": pooling none " + what);
    }
  }

  // `hidden_states`: EmbedOptions::hidden_states.
  Result result_of(CorpusRecord& record, bool hidden_states) const {
    TextOutput& output = record.output;
    Result result;
    result.index = record.input - 1;
    if (!per_token) result.embedding = std::move(output.embedding);
    result.logits = std::move(output.logits);
    result.probabilities = std::move(output.probabilities);
    result.label_id = output.label;
    if (output.label >= 0) result.label = pipeline.label_name(output.label);
    result.tokens = static_cast<int64_t>(output.encoding.size());
    result.chunks = record.chunks;
    result.text = *record.text;
    if (per_token) {
      result.token_embeddings = output.hidden;
      if (options.normalize) {
        const size_t d = static_cast<size_t>(pipeline.model().config.encoder.d_model);
        for (size_t begin = 0; begin + d <= result.token_embeddings.size(); begin += d) {
          std::vector<float> row(result.token_embeddings.begin() + begin,
                                 result.token_embeddings.begin() + begin + d);
          normalize_embedding(row);
          std::copy(row.begin(), row.end(), result.token_embeddings.begin() + begin);
        }
      }
    }
    if (hidden_states) result.hidden = std::move(output.hidden);
    result.encoding = std::move(output.encoding);
    return result;
  }

  // The texts through the corpus runner, every result in input order.
  std::vector<Result> run(const std::vector<std::string>& texts, const EmbedOptions& embed) {
    std::vector<Result> results;
    results.reserve(texts.size());
    CorpusRunner runner(pipeline, corpus_options(embed), per_token, [&](CorpusRecord& record) {
      results.push_back(result_of(record, embed.hidden_states));
    });
    for (const std::string& text : texts) runner.add(text);
    runner.flush();
    return results;
  }

  Options options;
  Pipeline pipeline;
  bool per_token = false;
};

// The Model's insides, for the other public_*.cc files: tinyenc.h names this struct a friend.
struct ModelAccess {
  static Model::Impl& impl(Model& model) { return *model.impl_; }
  static const Model::Impl& impl(const Model& model) { return *model.impl_; }
  static const Model::Stream::Impl& impl(const Model::Stream& stream) { return *stream.impl_; }
  // A Model around a new Impl(args...).
  template <typename... Args>
  static Model make(Args&&... args) {
    return Model(std::make_unique<Model::Impl>(std::forward<Args>(args)...));
  }
};

}  // namespace tinyenc
