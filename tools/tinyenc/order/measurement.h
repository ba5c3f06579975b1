// The measuring half of `tinyenc order`: a sentence and its reorderings encoded for one model
// (through the public library's <tinyenc/forward.h>: no loader of its own), run in batches, and
// the distances between the original's outputs and each reordering's, pooled and layer by layer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <tinyenc/encoding.h>
#include <tinyenc/forward.h>
#include <tinyenc/tinyenc.h>

#include "order/perturbation.h"
#include "unknown_tokens.h"

namespace tinyenc::cli::order {

// One sentence: a text, or raw token ids from --ids (shown as "3,1,4").
struct Sentence {
  std::string text;
  std::optional<std::vector<int32_t>> ids;
  std::string origin;  // for errors: "sentence 2", "FILE line 3", "--ids 3,1,4"
};

// The sentence as errors name it: where it came from and, when printable, the text.
std::string describe(const Sentence& sentence);

// One model folder, as the experiment uses it: sentences given as ids keep the template's
// special tokens in place, and every forward pass keeps each layer's hidden states.
class MeasuredModel {
 public:
  // `dtype` as Options::dtype takes it ("" is the folder's default); `threads` as
  // Options::threads.
  MeasuredModel(const std::filesystem::path& dir, bool need_tokenizer,
                const std::string& dtype = "", int threads = 0);

  const std::filesystem::path& dir() const { return dir_; }
  std::string position_encoding() const { return tinyenc::position_encoding(model_); }
  int64_t layers() const { return num_layers(model_); }
  const std::vector<std::string>& labels() const { return model_.labels(); }
  int64_t dimension() const { return model_.dimension(); }
  int64_t heads() const { return attention_heads(model_); }
  // The id the tokenizer gives to what its vocabulary lacks (<unk>, [UNK]); none without a
  // tokenizer.
  const UnknownToken& unknown() const { return unknown_; }
  // The unknown tokens of `encoding`: the text of `text` each stands for (the unknown piece when
  // it covers none, as with --ids).
  std::vector<std::string> unknown_sources(const Encoding& encoding, const std::string& text) const;
  // The tokenizer's multi-character Chinese words, for --unit word (empty without a tokenizer).
  const Lexicon& lexicon() const { return lexicon_; }

  // The tokens of a text (with the template's special tokens), or an encoding of raw ids, in
  // which the ids of the template's special tokens count as special.
  Encoding encode(const Sentence& sentence) const;

  // Ids in range and length within what the position encoding allows.
  void check(Encoding& encoding, const std::string& what) const {
    tinyenc::check(model_, encoding, what);
  }

  // The position offset of the passes from now on (--position-offset, --shift).
  void set_position_offset(int64_t offset) { tinyenc::set_position_offset(model_, offset); }

  // One padded forward pass keeping every layer's hidden states (and attention if asked), one
  // output per encoding.
  std::vector<ForwardOutput> forward(const std::vector<const Encoding*>& batch, bool attention);

 private:
  static Model load(const std::filesystem::path& dir, bool need_tokenizer, const std::string& dtype,
                    int threads);

  std::filesystem::path dir_;
  Model model_;
  std::set<int32_t> template_ids_;  // ids of the tokenizer template's special tokens
  UnknownToken unknown_;
  Lexicon lexicon_;
};

struct Variant {
  std::string name;        // the reordering, or "compare"
  std::vector<int> order;  // empty for --compare
  std::string text;        // the reordered text as a person reads it
  Encoding encoding;
  // alignment[t]: the position in `encoding` of the original's token t, when every token can be
  // followed to its new place; nullopt when its tokens are not the original's rearranged.
  std::optional<std::vector<size_t>> alignment;
  // Token unit: the offsets of `encoding` count in the original's text, not in `text`.
  bool offsets_in_original = false;
};

struct Experiment {
  Sentence sentence;
  Encoding encoding;
  std::vector<Variant> variants;
};

// Token unit: the ids themselves are permuted, template tokens ([CLS] [SEP], <s> </s>) stay in
// place.
void reorder_tokens(const MeasuredModel& model, const PerturbationSpec& spec,
                    Experiment& experiment, const std::string& what);
// Char and word units: the reordered text is built and tokenized afresh.
void reorder_text(const MeasuredModel& model, const PerturbationSpec& spec, Unit unit,
                  Experiment& experiment, const std::string& what);

struct Result {
  size_t model = 0;     // index into the models
  size_t sentence = 0;  // index of the original (A of a --compare pair)
  std::string text, perturbation, perturbed_text;
  std::vector<int> order;
  double cosine_distance = 0;
  std::optional<double> max_abs_logit_delta;
  int64_t label = -1, perturbed_label = -1;
  std::vector<double> layer_distances;
  bool token_aligned = false;
  // The tokens the vocabulary does not know, as the texts they stand for, in A and in B.
  std::vector<std::string> unknown, perturbed_unknown;
  // B differs from A only where the vocabulary knows nothing: the tokens it knows are the same,
  // in the same order. The words that moved are unknown to the model, so neither "no flip" nor
  // a distance (near 0 or not) says anything about how it reads word order.
  bool unknown_only = false;
};

// Whether A and B hold the same known tokens in the same order and some unknown ones.
bool differ_only_in_unknown(const Encoding& a, const Encoding& b, const UnknownToken& unknown);

// 1 - cos(a, b) over n values; 0 for two zero vectors, 1 for one.
double cosine_distance(const float* a, const float* b, int64_t n);

// Two outputs' logits (of one size) side by side: the largest |a[i] - b[i]| and each argmax.
struct LogitChange {
  double max_abs_delta = 0;
  int64_t label_a = -1, label_b = -1;
};
LogitChange compare_logits(const std::vector<float>& a, const std::vector<float>& b);

// The original and each of the experiment's variants run through the model, one Result per
// variant in order (its text, perturbation and order filled in; model and sentence left to the
// caller).
std::vector<Result> measure_experiment(MeasuredModel& model, const Experiment& experiment);

}  // namespace tinyenc::cli::order
