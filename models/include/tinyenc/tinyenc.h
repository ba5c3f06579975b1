// tinyenc as a library: a model folder (Hugging Face layout: config.json, model.safetensors and
// its tokenizer) loaded once, then texts in, embeddings and labels out.
//
//   tinyenc::Model model = tinyenc::Model::load("models/pretrained/order-rope");
//   std::vector<std::vector<float>> vectors = model.embed({"我打你", "你打我"});
//   tinyenc::Classification first = model.classify({"我打你"})[0];
//
// Only the standard library appears here: the engine (oneDNN) and the tokenizers stay behind
// the Model, so this header and its types are what stays stable.
#pragma once

#include <tinyenc/encoding.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace tinyenc {

// Everything tinyenc throws. kBadInput: the caller's input is wrong (a folder that cannot be
// read, a malformed file, a text too long, an id outside the vocabulary, an unknown option);
// the message names the file and the field. kInternal: tinyenc failed (out of memory, a bug).
class Error : public std::runtime_error {
 public:
  enum class Kind { kBadInput, kInternal };
  Error(Kind kind, const std::string& message);
  Kind kind() const noexcept { return kind_; }

 private:
  Kind kind_;
};

struct Options {
  // "cls", "mean", "pooler", or "none": a vector per token (Model::Result::token_embeddings),
  // while a classification head still labels from the model's own pooling; empty: config.json's.
  std::string pooling;
  bool normalize = false;  // L2-normalize the embeddings
  bool truncate = false;   // cut texts longer than the model allows instead of refusing them
  // Threads of the forward pass, 0 to 4 per CPU; 0: one per logical CPU this process may run
  // on (its affinity mask, as sched_getaffinity gives it; hyper-threads count), as `tinyenc run
  // --threads 0`. One OpenMP pool serves the whole process, so this is process-wide: the last
  // Model loaded sets it.
  int threads = 0;
  // What the matmuls compute in: "f32", "bf16", "int8", "auto" (the fastest that meets
  // tinyenc's accuracy gates on this CPU), or "" for the folder's own: int8 or bf16 for a folder
  // written by `tinyenc convert` (when this CPU runs it), f32 otherwise. One this CPU cannot run
  // is Error kBadInput naming the missing CPU feature.
  std::string dtype;
  // K added to every token's position id, as if each text began K tokens later (0 to 65536): the
  // shift-invariance experiment. Relative encodings (RoPE, ALiBi, T5) give the same outputs,
  // absolute ones (sinusoidal, learned) others; a learned table refuses texts that K pushes past
  // its end (Error kBadInput).
  int64_t position_offset = 0;
};

struct Classification {
  std::string label;  // config.json's id2label name, or LABEL_<id>
  int64_t id = -1;
  std::vector<float> probabilities;  // softmax over every label, in id order
};

// One input's outputs from forward().
struct Output {
  std::vector<float> embedding;  // pooled [dimension()]; empty with pooling none
  std::vector<float> logits;     // [labels().size()]; empty without a classification head
  std::vector<float> hidden;     // last hidden states, [tokens, dimension()]
};

// A Model reuses its buffers from one call to the next: call it from one thread at a time (or
// load one per thread).
class Model {
 public:
  // Loads and checks the folder; throws Error.
  static Model load(const std::string& folder, const Options& options = {});

  Model(Model&&) noexcept;
  Model& operator=(Model&&) noexcept;
  ~Model();

  // One pooled embedding per text (the model's pooling, or Options::pooling).
  std::vector<std::vector<float>> embed(const std::vector<std::string>& texts);
  // The label of each text; Error kBadInput for a model without a classification head.
  std::vector<Classification> classify(const std::vector<std::string>& texts);

  // The corpus path, as `tinyenc run` takes a file of texts: texts are gathered into windows,
  // sorted by token count within a window and packed into batches under a token budget (little
  // padding computed), and their results go out in input order. embed() and classify() above run
  // so too, with EmbedOptions' defaults; the results are those `tinyenc run` prints for the same
  // texts and options, bit for bit.
  struct EmbedOptions {
    int window = 4096;                // texts sorted and batched together (memory: their results)
    int64_t max_batch_tokens = 1024;  // real tokens of a batch; one text at least, however long
    int max_batch_texts = 256;        // at most this many texts in a batch
    // Texts longer than max_tokens(): "error" (Error kBadInput naming the text), "truncate" (cut
    // to fit, special tokens kept), "chunk" (the text's tokens in windows of max_tokens(), less
    // the special tokens, run as texts of their own; its embedding and logits are the windows'
    // weighted by the text tokens each holds; not with a position offset), or "": "truncate"
    // when Options::truncate is set, else "error".
    std::string long_texts;
    int64_t overlap = 0;  // "chunk": tokens two consecutive windows share
    bool pair = false;    // each text is "first<TAB>second", encoded as a pair (not with "chunk")
    bool hidden_states = false;  // Result::hidden: the last hidden state (not with "chunk")
    // How errors spell these options: a program's own flags ("--long") in place of the fields'
    // names.
    struct Names {
      std::string long_texts = "long_texts";
      std::string overlap = "overlap";
      std::string position_offset = "position_offset";
    } names;
  };

  // One text's outputs.
  struct Result {
    size_t index = 0;                  // 0-based, in the order the texts were given
    std::vector<float> embedding;      // [dimension()], normalized as Options::normalize says
    std::vector<float> logits;         // [labels().size()]; empty without a classification head
    std::vector<float> probabilities;  // softmax of the logits
    int64_t label_id = -1;             // argmax of the logits; -1 without a head
    std::string label;                 // its name (config.json's id2label, or LABEL_<id>)
    int64_t tokens = 0;  // the text's tokens, special tokens included (as cut by "truncate")
    int64_t chunks = 1;  // the windows it ran as ("chunk"), 1 otherwise
    std::string text;    // as added
    Encoding encoding;   // its tokens (the whole text's, when chunked)
    // Pooling none: [tokens, dimension()], a vector per token, each normalized as
    // Options::normalize says; empty otherwise.
    std::vector<float> token_embeddings;
    std::vector<float> hidden;  // EmbedOptions::hidden_states: [tokens, dimension()], as computed
  };

  std::vector<std::vector<float>> embed(const std::vector<std::string>& texts,
                                        const EmbedOptions& options);
  std::vector<Classification> classify(const std::vector<std::string>& texts,
                                       const EmbedOptions& options);
  // Every output of every text, in order.
  std::vector<Result> run(const std::vector<std::string>& texts, const EmbedOptions& options);

  // Texts added one by one, their results handed to a callback in input order as their windows
  // complete: a corpus of any size in the memory of one window. The Model must outlive the
  // Stream and runs one stream or call at a time (each keeps its own texts).
  class Stream {
   public:
    using Sink = std::function<void(Result&)>;
    // Optional: `window_done` after each window's results went out; `progress` after every text
    // added and every batch run, with the texts whose results went out, the real tokens through
    // the encoder, and the bytes of the texts done (a window being run counted in proportion).
    struct Hooks {
      std::function<void()> window_done;
      std::function<void(uint64_t texts, int64_t tokens, uint64_t bytes)> progress;
    };

    Stream(Stream&&) noexcept;
    Stream& operator=(Stream&&) noexcept;
    ~Stream();  // drops what is buffered: call flush() first

    // Buffers the text; when it fills the window, runs the window and hands out its results
    // (the sink is called from inside add()). Throws Error naming "input N" (1-based).
    void add(const std::string& text);
    // Token ids as they are (no tokenizer, no special tokens added), checked as a text is;
    // Result::text is `shown`.
    void add_ids(const std::vector<int32_t>& ids, const std::string& shown);
    // The index the next text gets (0-based): a part of a corpus keeps the whole's numbers.
    void set_next_index(size_t index);
    // Texts buffered, waiting for their window; when the first of them came (meaningless with
    // none). A program reading slow input flushes when it has waited long enough.
    size_t buffered() const;
    std::chrono::steady_clock::time_point first_buffered_time() const;
    // Runs what is buffered and hands out its results. After an Error, the window's texts
    // whose results had not gone out are dropped; the stream goes on with the next text.
    void flush();

   private:
    friend class Model;
    friend struct ModelAccess;
    struct Impl;
    explicit Stream(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
  };
  // Throws Error kBadInput for options that do not go together (an unknown long_texts, an
  // overlap without "chunk" or as long as a window, "chunk" with pairs, hidden states, pooling
  // none or a position offset).
  Stream stream(const EmbedOptions& options, Stream::Sink sink, Stream::Hooks hooks = {});

  // The encoder on token ids as they are (no tokenizer, no special tokens added).
  std::vector<Output> forward(const std::vector<std::vector<int32_t>>& ids);

  int64_t dimension() const;                       // d_model, the length of an embedding
  const std::vector<std::string>& labels() const;  // by id; empty without a head
  int64_t max_tokens() const;   // the longest input, special tokens included; 0: no limit
  std::string dtype() const;    // the dtype in use: "f32", "bf16" or "int8"
  std::string pooling() const;  // "cls", "mean", "pooler" or "none" (a vector per token)

 private:
  struct Impl;
  friend struct ModelAccess;  // the rest of the public library (models/public_model_impl.h)
  explicit Model(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tinyenc
