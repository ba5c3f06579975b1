// A corpus through a model: the one path from texts to their outputs of tinyenc::Model (embed,
// classify, Stream) and of `tinyenc run` and `tinyenc bench --corpus`. Texts are gathered into
// windows of a few thousand; within a window they are sorted by token count and packed into
// batches under a token budget, so that a batch holds texts of about one length and the forward
// computes little padding; the window's records then go out in input order. Memory is bounded by
// the window, never by the corpus.
//
// Texts longer than the model's max_sequence_length (LongTexts):
//  - kError: refused, "input N: ... tokens, longer than the model's ...".
//  - kTruncate: cut to fit as Pipeline::check cuts them (Hugging Face's "longest_first").
//  - kChunk: the text's own tokens (TokenSource::kFirst) are split into windows of at most
//    max_sequence_length - (the template's special tokens) tokens, consecutive windows sharing
//    `overlap` tokens; each window gets the template's special tokens around it again ([CLS] ...
//    [SEP], <s> ... </s>) and runs as a text of its own. The text's outputs are the
//    token-weighted mean of its windows' outputs, the weight of a window being the number of the
//    text's tokens it holds (specials not counted; an overlapped token counts in both windows):
//      embedding = sum_k w_k e_k / sum_k w_k, where e_k is window k's pooled vector as the model
//        pools it: cls, window k's first token (its own [CLS]); mean, the mean over window k's
//        tokens, its specials included as mean pooling always includes them; pooler,
//        tanh(dense(window k's [CLS])); a unit vector when the model normalizes its embeddings.
//      logits = sum_k w_k l_k / sum_k w_k; probabilities = softmax(logits); label = argmax.
//    With overlap 0 and mean pooling this is the mean over the text's tokens except that every
//    window brings its own specials. A vector per token, hidden states and pairs of texts have no
//    single meaning across windows and are refused with kChunk.
//
// Normalization: a text's embedding goes out L2-normalized when the model normalizes its
// embeddings (config.json, sentence-transformers' Normalize module) or CorpusOptions::normalize
// asks; this runner is the one place that normalizes.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/layers/stage_times.h"
#include "models/pipeline.h"

namespace tinyenc {

enum class LongTexts { kError, kTruncate, kChunk };

// How the caller's users spell the options in errors: the library's field names by default,
// "--long", "--overlap", "--position-offset" on the command line.
struct CorpusOptionNames {
  std::string long_texts = "long_texts";
  std::string overlap = "overlap";
  std::string position_offset = "position_offset";
};

// "error", "truncate", "chunk"; throws std::invalid_argument naming `option` for anything else.
LongTexts parse_long_texts(const std::string& name, const std::string& option);

// The token budget of a batch (real tokens, not padding). Past about a thousand tokens a batch
// stops getting faster per token and gets slower as its activations (tokens x ffn_dim floats)
// outgrow the caches; below a few hundred, several threads share too few rows. Measured on a mini
// BERT (d_model 256, 4 layers, ffn 1024; f32, one thread, AMD EPYC Zen 3 with AVX2, a busy
// two-CPU machine, so +-20%), the figures in corpus_runner.cc.
constexpr int64_t kDefaultMaxBatchTokens = 1024;
constexpr int kDefaultWindow = 4096;
constexpr int kDefaultMaxBatchTexts = 256;

struct CorpusOptions {
  int window = kDefaultWindow;  // texts sorted and batched together
  int64_t max_batch_tokens = kDefaultMaxBatchTokens;
  int max_batch_texts = kDefaultMaxBatchTexts;  // at most this many per batch
  bool pair = false;                            // texts are "first<TAB>second"
  bool keep_hidden = false;                     // the last hidden state's rows per text
  bool normalize = false;  // L2-normalize the embeddings (the model may already: see above)
  LongTexts long_texts = LongTexts::kError;
  int64_t overlap = 0;  // kChunk: tokens two consecutive windows share
  CorpusOptionNames names;
};

// What the runner did, for `bench --corpus` and the progress line.
struct CorpusStats {
  size_t texts = 0;
  int64_t tokens = 0;           // the texts' tokens as `tinyenc tokenize` counts them
  int64_t run_tokens = 0;       // real tokens the forward saw (chunk windows, truncated texts)
  int64_t computed_tokens = 0;  // what the forward computed, padding included
  int64_t chunked_texts = 0;    // texts split into windows
  int64_t chunks = 0;           // windows run for those texts
  uint64_t bytes = 0;           // the texts' bytes, a newline each
  double tokenize_seconds = 0;
  StageTimes stages;  // the engine's, summed over every batch
  // The computed tokens of fixed batches of 32 in input order, no sorting, each padded to its
  // longest: what the plain batching would have cost (the last batch may be smaller).
  int64_t unsorted_32_computed_tokens = 0;
};

// A text's outputs as they go out: `output.encoding` is the whole text's encoding (all of it,
// when chunked), `chunks` the windows it ran as (1 unless chunked).
struct CorpusRecord {
  size_t input = 0;  // 1-based: the number set_next_input() gave, counted on from there
  const std::string* text = nullptr;
  TextOutput output;
  int64_t chunks = 1;
};

class CorpusRunner {
 public:
  using RecordSink = std::function<void(CorpusRecord&)>;  // called in input order
  using WindowDone = std::function<void()>;               // after a window's records
  // Texts whose records went out, real tokens through the forward, and the bytes of the texts
  // done (of a window being run: in proportion to its pieces run). Called after every text added
  // and every batch run.
  using ProgressSink = std::function<void(uint64_t texts, int64_t tokens, uint64_t bytes)>;

  // Throws std::invalid_argument when the options do not go together on this model: chunking
  // with pairs, hidden states, a vector per token (`per_token`) or a position offset; an overlap
  // without chunking or one that leaves a window no new tokens.
  CorpusRunner(Pipeline& pipeline, const CorpusOptions& options, bool per_token,
               RecordSink record_sink, WindowDone window_done = {}, ProgressSink progress = {});

  // The next input is number `input` (1-based): a shard starts past the lines it skips.
  void set_next_input(size_t input) { next_input_ = input; }

  // Tokenizes and buffers a text; runs the window once it is full. Errors name "input N".
  void add(std::string text);
  // A text given as an encoding already checked (Pipeline::encode_ids, say); `text` is what its
  // record shows.
  void add_encoding(std::string text, Encoding encoding);
  // Runs what is buffered and hands out its records. When a text of the window fails (or the
  // sink throws), the window's records that did not go out are dropped with it.
  void flush();

  // Texts buffered, waiting for their window to run.
  size_t buffered() const { return entries_.size(); }
  // When the first of them was added (meaningless with none).
  std::chrono::steady_clock::time_point first_buffered_time() const { return first_arrival_; }

  // So far; the fixed batches of 32 count their last, partial batch.
  CorpusStats stats() const;

 private:
  struct Entry {
    size_t input;
    std::string text;
    Encoding encoding;  // chunked texts only: the whole text (the pieces hold the rest)
    size_t first_piece, pieces;
    std::vector<int64_t> weights;  // chunked texts: each window's tokens of the text
  };

  void enqueue(size_t input, std::string text, Encoding encoding);
  void run_window();
  void discard_window();
  void count_unsorted(int64_t tokens);
  void report_progress(uint64_t texts, uint64_t bytes) const;

  Pipeline& pipeline_;
  CorpusOptions options_;
  RecordSink record_sink_;
  WindowDone window_done_;
  ProgressSink progress_;
  std::vector<Entry> entries_;
  std::vector<Encoding> pieces_;  // what runs: one per text, or a text's windows
  std::vector<size_t> piece_entry_;
  size_t next_input_ = 1;
  int64_t unsorted_longest_ = 0, unsorted_count_ = 0;
  int64_t tokens_done_ = 0;  // real tokens through the forward, for the progress line
  uint64_t bytes_done_ = 0;  // bytes of the texts whose windows are done
  CorpusStats stats_;
  std::chrono::steady_clock::time_point first_arrival_;
};

}  // namespace tinyenc
