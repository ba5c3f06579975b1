// The default token budget (kDefaultMaxBatchTokens), measured on a mini BERT (d_model 256,
// 4 layers, ffn 1024), f32, one thread, AMD EPYC (Zen 3, AVX2), on a machine busy with other
// work (load 4-6 on 2 CPUs, so figures move by +-20% between runs):
//  - fixed shapes, `tinyenc bench --config mini --threads 1 --seq 32 --batch-size
//    1,4,8,16,32,64,128,256 --min-time 0.5`: tokens/s from the fastest run at 32, 1024, 2048,
//    8192 tokens a batch: 9710, 6980, 6240, 6120 (p50: 7270, 6370, 5950, 5590). No gain past
//    32 tokens for a model this small; a slow loss past 1024.
//  - a corpus of 1000 lines (36,122 tokens; 84 % of 5-40 tokens, 15 % of 41-128, 0.7 % over 512,
//    chunked), `tinyenc bench --corpus FILE -m MINI --long chunk --threads 1 --max-batch-tokens
//    B`, tokens/s over two runs each: B=128 4650/6650, 256 4230/5250, 512 6610/6730 (and 4850/4700
//    later), 1024 4730/4430, 2048 4870/5630, 8192 2580/2440. Padding waste of the padded engine:
//    0.3 %, 0.8 %, 2.2 %, 5.2 %, 11.5 %, 46 % (fixed batches of 32 unsorted: 81 %).
// 1024 is the largest budget before the loss, and leaves a thread or two each hundreds of rows.
#include "models/corpus_runner.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "engine/encoder.h"
#include "engine/io/quoted.h"
#include "models/normalize_embedding.h"

namespace tinyenc {
namespace {

// Fixed batches of this many texts are what `bench --corpus` compares the sorted batches with.
constexpr int64_t kUnsortedBatch = 32;

// The special tokens the template puts around one text: [CLS] and [SEP], <s> and </s>.
int64_t template_specials(const Pipeline& pipeline) {
  if (!pipeline.has_tokenizer()) return 0;
  return static_cast<int64_t>(pipeline.tokenizer().encode("").size());
}

// A text's windows (see corpus_runner.h): its own tokens cut into runs of at most `capacity`
// tokens, consecutive runs sharing `overlap`, each between the template's specials again.
// `weights` receives each window's count of the text's tokens.
std::vector<Encoding> split_into_windows(const Encoding& encoding, int64_t capacity,
                                         int64_t overlap, std::vector<int64_t>& weights) {
  std::vector<size_t> content;
  for (size_t i = 0; i < encoding.size(); ++i) {
    if (encoding.sources[i] == TokenSource::kFirst) content.push_back(i);
  }
  const auto copy = [&](Encoding& to, size_t i) {
    to.append(encoding.tokens[i], encoding.ids[i], encoding.token_type_ids[i], encoding.sources[i],
              encoding.offsets[i]);
  };
  const int64_t count = static_cast<int64_t>(content.size());
  const int64_t stride = capacity - overlap;
  std::vector<Encoding> windows;
  for (int64_t start = 0;; start += stride) {
    const int64_t end = std::min(start + capacity, count);
    Encoding window;
    for (size_t i = 0; i < content.front(); ++i) copy(window, i);
    for (int64_t j = start; j < end; ++j) copy(window, content[static_cast<size_t>(j)]);
    for (size_t i = content.back() + 1; i < encoding.size(); ++i) copy(window, i);
    windows.push_back(std::move(window));
    weights.push_back(end - start);
    if (end == count) break;
  }
  return windows;
}

void weighted_mean(const std::vector<TextOutput>& outputs, size_t first,
                   const std::vector<int64_t>& weights, std::vector<float> TextOutput::*field,
                   std::vector<float>& result) {
  const size_t size = (outputs[first].*field).size();
  std::vector<double> sum(size, 0.0);
  double total = 0.0;
  for (size_t k = 0; k < weights.size(); ++k) {
    const std::vector<float>& values = outputs[first + k].*field;
    const double weight = static_cast<double>(weights[k]);
    for (size_t i = 0; i < size; ++i) sum[i] += weight * values[i];
    total += weight;
  }
  result.resize(size);
  for (size_t i = 0; i < size; ++i) result[i] = static_cast<float>(sum[i] / total);
}

// A chunked text's outputs from its windows' (corpus_runner.h says what each field becomes).
// `unit_windows`: the model normalizes its embeddings, so each window's is a unit vector.
TextOutput combine_windows(std::vector<TextOutput>& outputs, size_t first,
                           const std::vector<int64_t>& weights, Encoding whole, bool unit_windows) {
  TextOutput out;
  out.encoding = std::move(whole);
  if (!outputs[first].embedding.empty()) {
    if (unit_windows) {
      for (size_t k = 0; k < weights.size(); ++k) normalize_embedding(outputs[first + k].embedding);
    }
    weighted_mean(outputs, first, weights, &TextOutput::embedding, out.embedding);
  }
  if (!outputs[first].logits.empty()) {
    weighted_mean(outputs, first, weights, &TextOutput::logits, out.logits);
    out.probabilities.resize(out.logits.size());
    label_probabilities(out.logits.data(), static_cast<int64_t>(out.logits.size()),
                        out.probabilities.data());
    out.label = std::max_element(out.logits.begin(), out.logits.end()) - out.logits.begin();
  }
  return out;
}

// Sets the pipeline's truncate option for as long as it lives: a runner's long-text rule holds
// for its own texts, whatever other runners on the same pipeline do.
class TruncateScope {
 public:
  TruncateScope(Pipeline& pipeline, bool truncate)
      : pipeline_(pipeline), before_(pipeline.truncates()) {
    pipeline_.set_truncate(truncate);
  }
  ~TruncateScope() { pipeline_.set_truncate(before_); }
  TruncateScope(const TruncateScope&) = delete;
  TruncateScope& operator=(const TruncateScope&) = delete;

 private:
  Pipeline& pipeline_;
  bool before_;
};

}  // namespace

LongTexts parse_long_texts(const std::string& name, const std::string& option) {
  if (name == "error") return LongTexts::kError;
  if (name == "truncate") return LongTexts::kTruncate;
  if (name == "chunk") return LongTexts::kChunk;
  throw std::invalid_argument(option + ": expected error, truncate or chunk, got " +
                              in_quotes(name));
}

CorpusRunner::CorpusRunner(Pipeline& pipeline, const CorpusOptions& options, bool per_token,
                           RecordSink record_sink, WindowDone window_done, ProgressSink progress)
    : pipeline_(pipeline),
      options_(options),
      record_sink_(std::move(record_sink)),
      window_done_(std::move(window_done)),
      progress_(std::move(progress)) {
  const CorpusOptionNames& names = options_.names;
  if (options_.window < 1 || options_.max_batch_texts < 1 || options_.max_batch_tokens < 1) {
    throw std::invalid_argument(
        "window, max_batch_texts and max_batch_tokens: expected 1 or more, got " +
        std::to_string(options_.window) + ", " + std::to_string(options_.max_batch_texts) +
        " and " + std::to_string(options_.max_batch_tokens));
  }
  if (options_.long_texts != LongTexts::kChunk) {
    if (options_.overlap != 0) {
      throw std::invalid_argument(names.overlap + ": only " + names.long_texts +
                                  " chunk has windows");
    }
    return;
  }
  // A window's pooled vector and logits average meaningfully; a per-token output, a pair's two
  // texts and the rows of hidden states have no one way to join.
  if (per_token || options_.keep_hidden || options_.pair) {
    throw std::invalid_argument(names.long_texts +
                                " chunk: chunks join pooled outputs only, not a vector per token, "
                                "hidden states or the two texts of a pair");
  }
  if (pipeline_.position_offset() > 0) {
    throw std::invalid_argument(names.position_offset + " and " + names.long_texts +
                                " chunk: a chunk's positions would not be the text's; give one or "
                                "the other");
  }
  if (options_.overlap < 0) {
    throw std::invalid_argument(names.overlap + " " + std::to_string(options_.overlap) +
                                ": expected 0 or more");
  }
  const int64_t limit = pipeline_.model().config.max_sequence_length;
  if (limit > 0) {
    const int64_t capacity = limit - template_specials(pipeline_);
    if (options_.overlap >= capacity) {
      throw std::invalid_argument(names.overlap + " " + std::to_string(options_.overlap) +
                                  ": must be less than the " + std::to_string(capacity) +
                                  " tokens of text a window holds (" + std::to_string(limit) +
                                  " positions less the template's specials)");
    }
  }
}

void CorpusRunner::add(std::string text) {
  const size_t input = next_input_++;
  const auto start = std::chrono::steady_clock::now();
  Encoding encoding;
  try {
    const TruncateScope truncate(pipeline_, options_.long_texts == LongTexts::kTruncate);
    // Chunks keep every token; otherwise no more than the model takes is tokenized.
    encoding = options_.long_texts == LongTexts::kChunk
                   ? pipeline_.tokenize(text, options_.pair)
                   : pipeline_.tokenize_to_keep(text, options_.pair);
    stats_.tokens += static_cast<int64_t>(encoding.size());
    const int64_t limit = pipeline_.model().config.max_sequence_length;
    const bool chunked = options_.long_texts == LongTexts::kChunk && limit > 0 &&
                         static_cast<int64_t>(encoding.size()) > limit;
    if (!chunked) pipeline_.check(encoding, "text " + in_quotes(text));
  } catch (const std::out_of_range& e) {
    throw std::out_of_range("input " + std::to_string(input) + ": " + e.what());
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("input " + std::to_string(input) + ": " + e.what());
  }
  stats_.tokenize_seconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  stats_.bytes += text.size() + 1;
  enqueue(input, std::move(text), std::move(encoding));
}

void CorpusRunner::add_encoding(std::string text, Encoding encoding) {
  const size_t input = next_input_++;
  stats_.tokens += static_cast<int64_t>(encoding.size());
  enqueue(input, std::move(text), std::move(encoding));
}

void CorpusRunner::enqueue(size_t input, std::string text, Encoding encoding) {
  if (entries_.empty()) first_arrival_ = std::chrono::steady_clock::now();
  Entry entry{input, std::move(text), {}, pieces_.size(), 1, {}};
  const int64_t limit = pipeline_.model().config.max_sequence_length;
  if (options_.long_texts == LongTexts::kChunk && limit > 0 &&
      static_cast<int64_t>(encoding.size()) > limit) {
    const int64_t capacity = limit - template_specials(pipeline_);
    std::vector<Encoding> windows =
        split_into_windows(encoding, capacity, options_.overlap, entry.weights);
    for (Encoding& window : windows) {
      try {
        pipeline_.check(window, "text " + in_quotes(entry.text));
      } catch (const std::out_of_range& e) {
        pieces_.resize(entry.first_piece);
        throw std::out_of_range("input " + std::to_string(input) + ": " + e.what());
      }
      pieces_.push_back(std::move(window));
    }
    entry.pieces = windows.size();
    entry.encoding = std::move(encoding);
    ++stats_.chunked_texts;
    stats_.chunks += static_cast<int64_t>(entry.pieces);
  } else {
    pieces_.push_back(std::move(encoding));
  }
  for (size_t p = entry.first_piece; p < pieces_.size(); ++p) {
    piece_entry_.push_back(entries_.size());
    const int64_t tokens = static_cast<int64_t>(pieces_[p].size());
    stats_.run_tokens += tokens;
    count_unsorted(tokens);
  }
  entries_.push_back(std::move(entry));
  if (entries_.size() >= static_cast<size_t>(options_.window)) {
    flush();
  } else {
    report_progress(stats_.texts, bytes_done_);
  }
}

void CorpusRunner::count_unsorted(int64_t tokens) {
  unsorted_longest_ = std::max(unsorted_longest_, tokens);
  if (++unsorted_count_ < kUnsortedBatch) return;
  stats_.unsorted_32_computed_tokens += unsorted_count_ * unsorted_longest_;
  unsorted_count_ = unsorted_longest_ = 0;
}

CorpusStats CorpusRunner::stats() const {
  CorpusStats stats = stats_;
  stats.unsorted_32_computed_tokens += unsorted_count_ * unsorted_longest_;
  return stats;
}

void CorpusRunner::report_progress(uint64_t texts, uint64_t bytes) const {
  if (progress_) progress_(texts, tokens_done_, bytes);
}

void CorpusRunner::flush() {
  if (entries_.empty()) return;
  try {
    run_window();
  } catch (...) {
    discard_window();
    throw;
  }
  discard_window();
  if (window_done_) window_done_();
  bytes_done_ = stats_.bytes;
  report_progress(stats_.texts, bytes_done_);
}

void CorpusRunner::discard_window() {
  entries_.clear();
  pieces_.clear();
  piece_entry_.clear();
}

void CorpusRunner::run_window() {
  // Shortest first; equal lengths keep their input order, so a run is reproducible.
  std::vector<size_t> order(pieces_.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return pieces_[a].size() < pieces_[b].size(); });
  std::vector<TextOutput> outputs(pieces_.size());
  ForwardOptions forward_options;
  forward_options.times = &stats_.stages;
  size_t pieces_done = 0;
  // The share of the input done, for the progress line: the window's bytes in proportion to its
  // pieces run (the whole window was read before the first of them ran).
  const uint64_t window_bytes = stats_.bytes - bytes_done_;
  for (size_t begin = 0; begin < order.size();) {
    // As many as fit the budget (one at least, however long), at most max_batch_texts.
    size_t end = begin;
    int64_t tokens = 0;
    while (end < order.size() && end - begin < static_cast<size_t>(options_.max_batch_texts)) {
      const int64_t next = static_cast<int64_t>(pieces_[order[end]].size());
      if (end > begin && tokens + next > options_.max_batch_tokens) break;
      tokens += next;
      ++end;
    }
    std::vector<Encoding> batch;
    for (size_t i = begin; i < end; ++i) batch.push_back(std::move(pieces_[order[i]]));
    std::vector<TextOutput> results;
    try {
      results = pipeline_.run(batch, options_.keep_hidden, forward_options);
    } catch (const NonFiniteOutputError& e) {
      // The weights overflow float32 on this input: the folder's problem, not tinyenc's.
      const size_t piece = order[begin + static_cast<size_t>(e.sequence)];
      const size_t input = entries_[piece_entry_[piece]].input;
      throw std::invalid_argument(pipeline_.dir().string() + ": input " + std::to_string(input) +
                                  ": " + e.what());
    }
    stats_.computed_tokens += pipeline_.computed_tokens();
    tokens_done_ += tokens;
    for (size_t i = begin; i < end; ++i) outputs[order[i]] = std::move(results[i - begin]);
    pieces_done += end - begin;
    begin = end;
    report_progress(stats_.texts + entries_.size() * pieces_done / pieces_.size(),
                    bytes_done_ + window_bytes * pieces_done / pieces_.size());
  }
  const bool model_normalizes = pipeline_.model().config.normalize_embeddings;
  for (Entry& entry : entries_) {
    CorpusRecord record;
    record.input = entry.input;
    record.text = &entry.text;
    record.chunks = static_cast<int64_t>(entry.pieces);
    if (entry.pieces == 1) {
      record.output = std::move(outputs[entry.first_piece]);
    } else {
      record.output = combine_windows(outputs, entry.first_piece, entry.weights,
                                      std::move(entry.encoding), model_normalizes);
    }
    if (model_normalizes || options_.normalize) normalize_embedding(record.output.embedding);
    record_sink_(record);
    ++stats_.texts;
  }
}

}  // namespace tinyenc
