// A corpus through a model, shared by `tinyenc run` and `tinyenc bench --corpus`: texts are
// gathered into windows of a few thousand; within a window they are sorted by token count and
// packed into batches under a token budget, so that a batch holds texts of about one length and
// the forward computes little padding; the window's records then go out in input order. Memory
// is bounded by the window, never by the corpus.
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
//        tanh(dense(window k's [CLS])). Re-normalized to unit L2 norm when the model normalizes
//        its embeddings (each e_k is then a unit vector too).
//      logits = sum_k w_k l_k / sum_k w_k; probabilities = softmax(logits); label = argmax.
//    With overlap 0 and mean pooling this is the mean over the text's tokens except that every
//    window brings its own specials. Pooling none, --hidden-states and --pair have no single
//    meaning across windows and are refused with kChunk (CorpusOptions::check).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "engine/layers/stage_times.h"
#include "models/pipeline.h"

namespace tinyenc::cli {

class LineReader;
class Progress;

enum class LongTexts { kError, kTruncate, kChunk };

// "error", "truncate", "chunk"; throws UsageError naming --long for anything else.
LongTexts parse_long_texts(const std::string& name);

// The token budget of a batch (real tokens, not padding). Past about a thousand tokens a batch
// stops getting faster per token and gets slower as its activations (tokens x ffn_dim floats)
// outgrow the caches; below a few hundred, several threads share too few rows. Measured on a mini
// BERT (d_model 256, 4 layers, ffn 1024; f32, one thread, AMD EPYC Zen 3 with AVX2, a busy
// two-CPU machine, so +-20%), the figures in corpus.cc.
constexpr int64_t kDefaultMaxBatchTokens = 1024;
constexpr int kDefaultWindow = 4096;
constexpr int kDefaultMaxBatchTexts = 256;

struct CorpusOptions {
  int window = kDefaultWindow;  // texts sorted and batched together
  int64_t max_batch_tokens = kDefaultMaxBatchTokens;
  int max_batch_texts = kDefaultMaxBatchTexts;  // --batch-size: at most this many per batch
  bool pair = false;                            // texts are "first<TAB>second"
  bool keep_hidden = false;                     // the last hidden state's rows per text
  LongTexts long_texts = LongTexts::kError;
  int64_t overlap = 0;  // kChunk: tokens two consecutive windows share
};

// What the runner did, for `bench --corpus` and the progress line.
struct CorpusStats {
  size_t texts = 0;
  int64_t tokens = 0;           // the texts' tokens as `tinyenc tokenize` counts them
  int64_t run_tokens = 0;       // real tokens the forward saw (chunk windows, truncated texts)
  int64_t computed_tokens = 0;  // what the forward computed, padding included
  int64_t chunked_texts = 0;    // texts split into windows
  int64_t chunks = 0;           // windows run for those texts
  uint64_t bytes = 0;           // input read, newlines included
  double tokenize_seconds = 0;
  StageTimes stages;  // the engine's, summed over every batch
  // The computed tokens of fixed batches of 32 in input order, no sorting, each padded to its
  // longest: what the plain batching would have cost (the last batch may be smaller).
  int64_t unsorted_32_computed_tokens = 0;
};

// A text's outputs as they go out: `output.encoding` is the whole text's encoding (all of it,
// when chunked), `chunks` the windows it ran as (1 unless chunked).
struct CorpusRecord {
  size_t input = 0;  // 1-based: arguments first, then lines (the line number for -i FILE)
  const std::string* text = nullptr;
  TextOutput output;
  int64_t chunks = 1;
};

class CorpusRunner {
 public:
  using RecordSink = std::function<void(CorpusRecord&)>;  // called in input order
  using WindowDone = std::function<void()>;               // after a window's records

  // Throws UsageError when the options do not go together on this model (chunking with --pair,
  // hidden states or pooling none; an overlap that leaves a window no new tokens).
  CorpusRunner(Pipeline& pipeline, const CorpusOptions& options, bool per_token,
               RecordSink record_sink, WindowDone window_done = {}, Progress* progress = nullptr);

  // The next input is number `input` (1-based): a shard starts past the lines it skips.
  void set_next_input(size_t input) { next_input_ = input; }

  // Tokenizes and buffers a text; runs the window once it is full. Errors name "input N".
  void add(std::string text);
  // A text given as token ids (`run --ids`); `text` is what its record shows.
  void add_ids(std::string text, const std::vector<int32_t>& ids);
  // Every line of `reader`, at most `max_lines` of them, is a text (an empty one too). With
  // `interactive` (a pipe or a terminal), what is buffered runs when the input pauses or its
  // first text has waited 200 ms, so that lines typed or piped in slowly are answered as they
  // come.
  void read(LineReader& reader, bool interactive,
            size_t max_lines = std::numeric_limits<size_t>::max());
  // Runs what is buffered and hands out its records.
  void flush();

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
  void count_unsorted(int64_t tokens);

  Pipeline& pipeline_;
  CorpusOptions options_;
  RecordSink record_sink_;
  WindowDone window_done_;
  Progress* progress_;
  std::vector<Entry> entries_;
  std::vector<Encoding> pieces_;  // what runs: one per text, or a text's windows
  std::vector<size_t> piece_entry_;
  size_t next_input_ = 1;
  int64_t unsorted_longest_ = 0, unsorted_count_ = 0;
  int64_t tokens_done_ = 0;  // real tokens through the forward, for the progress line
  uint64_t bytes_done_ = 0;  // input bytes of the texts whose windows are done
  CorpusStats stats_;
  std::chrono::steady_clock::time_point first_arrival_;
};

// --shard I/N: shard I of N (0-based).
struct Shard {
  int64_t index = 0, count = 1;
};
// "I/N" with 0 <= I < N; throws UsageError naming --shard otherwise.
Shard parse_shard(const std::string& text);

// The lines [first_line, end_line) of a regular file that shard I of N processes, and where they
// begin and end in bytes. A shard is a run of whole windows: of the file's K = ceil(L / window)
// windows (L lines, a last one without "\n" counted) shard I takes windows I*K/N to (I+1)*K/N
// (rounded down), so lines window*floor(I*K/N) to window*floor((I+1)*K/N). Its batches are then
// the very batches the unsharded run forms for those lines, so the shards' outputs concatenated
// in order are the unsharded output byte for byte, whatever the engine's rounding does with a
// batch's shape. (Cutting at I*L/N instead would batch the lines of a window that straddles a
// cut differently, and change the last bits of their floats.) Throws std::invalid_argument when
// the file cannot be read.
struct LineRange {
  uint64_t first_line = 0, end_line = 0;
  uint64_t first_byte = 0, end_byte = 0;
};
LineRange shard_lines(const std::string& path, const Shard& shard, int window);

}  // namespace tinyenc::cli
