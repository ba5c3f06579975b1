// What every part of the public library (<tinyenc/...>) shares behind tinyenc::Model: the
// pipeline it holds, and the one way the library's errors become tinyenc::Error. Private: only
// models/public_*.cc include it.
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

#include "models/normalize_embedding.h"
#include "models/pipeline.h"

namespace tinyenc {

// Texts per forward pass: a padded batch grows with its longest text, so a long list goes in
// slices rather than as one batch that might not fit in memory.
constexpr size_t kBatch = 32;

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

// Model::load, and load_for_forward (<tinyenc/forward.h>) with its tokenizer and hint options.
Model load_model(const std::string& folder, const ForwardLoadOptions& options);

struct Model::Impl {
  Impl(const std::string& folder, const PipelineOptions& pipeline_options, const Options& options)
      : options(options), pipeline(folder, pipeline_options) {}

  // The encodings in slices of kBatch, one TextOutput each, in order.
  std::vector<TextOutput> run(std::vector<Encoding> encodings, bool keep_hidden) {
    std::vector<TextOutput> outputs;
    for (size_t begin = 0; begin < encodings.size(); begin += kBatch) {
      const size_t end = std::min(encodings.size(), begin + kBatch);
      std::vector<Encoding> batch(std::make_move_iterator(encodings.begin() + begin),
                                  std::make_move_iterator(encodings.begin() + end));
      std::vector<TextOutput> done;
      try {
        done = pipeline.run(batch, keep_hidden);
      } catch (const NonFiniteOutputError& e) {
        // The weights overflow float32 on this input: the folder's problem, not tinyenc's.
        throw bad_input(pipeline.dir().string() + ": input " +
                        std::to_string(begin + static_cast<size_t>(e.sequence) + 1) + ": " +
                        e.what());
      }
      for (TextOutput& output : done) {
        if (options.normalize) normalize_embedding(output.embedding);
        outputs.push_back(std::move(output));
      }
    }
    return outputs;
  }

  std::vector<TextOutput> run_texts(const std::vector<std::string>& texts) {
    std::vector<Encoding> encodings;
    for (const std::string& text : texts) encodings.push_back(pipeline.encode(text));
    return run(std::move(encodings), false);
  }

  Options options;
  Pipeline pipeline;
};

// The Model's insides, for the other public_*.cc files: tinyenc.h names this struct a friend.
struct ModelAccess {
  static Model::Impl& impl(Model& model) { return *model.impl_; }
  static const Model::Impl& impl(const Model& model) { return *model.impl_; }
  // A Model of the folder's pipeline.
  static Model make(const std::string& folder, const PipelineOptions& pipeline_options,
                    const Options& options) {
    return Model(std::make_unique<Model::Impl>(folder, pipeline_options, options));
  }
};

}  // namespace tinyenc
