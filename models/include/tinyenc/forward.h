// The encoder's insides for a batch of encodings, as Hugging Face's `model(**batch,
// output_hidden_states=True, output_attentions=True)` gives them: every layer's hidden states,
// every layer's attention probabilities, and position ids that begin at an offset. What
// experiments on word order and position encodings measure.
//
//   tinyenc::Model model = tinyenc::load_for_forward("models/pretrained/order-rope");
//   tinyenc::Encoding encoding = tinyenc::Tokenizer::of(model).encode("我打你");
//   tinyenc::check(model, encoding, "my sentence");
//   tinyenc::ForwardRequest request;
//   request.output_hidden_states = true;
//   tinyenc::ForwardOutput output = tinyenc::forward(model, {encoding}, request)[0];
//   // output.hidden_states[l]: [tokens, dimension()] floats, l = 0 the embeddings' output
//
// Part of the public library: the standard library only. Errors are tinyenc::Error
// (<tinyenc/tinyenc.h>).
#pragma once

#include <tinyenc/encoding.h>
#include <tinyenc/options.h>
#include <tinyenc/tinyenc.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tinyenc {

// How load_for_forward treats a folder: Model::load's options, plus what a program that also
// runs raw ids needs.
struct ForwardLoadOptions {
  Options options;  // as Model::load takes them
  // False: a folder whose tokenizer is missing or does not load still loads, for raw ids
  // (has_tokenizer() then says false and Tokenizer::of() throws).
  bool require_tokenizer = true;
  // Appended to the error of a required tokenizer that does not load ("" adds nothing).
  std::string tokenizer_hint;
  // Ends the error that refuses an input longer than the model allows: how the caller's user
  // asks to cut it ("" adds nothing).
  std::string truncate_hint = "set Options::truncate to cut it";
};

// Loads and checks the folder as Model::load does; throws Error.
Model load_for_forward(const std::string& folder, const ForwardLoadOptions& options = {});

struct ForwardRequest {
  // Keep the hidden states of every layer: ForwardOutput::hidden_states.
  bool output_hidden_states = false;
  // Keep every layer's attention probabilities: ForwardOutput::attentions.
  bool output_attentions = false;
  // K added to every token's position id (position_ids = K, K+1, ...), 0 to 65536; empty: the
  // model's own (Options::position_offset, or the last set_position_offset()). Relative
  // encodings (RoPE, ALiBi, T5) give the same outputs at any K (up to float rounding), absolute
  // ones (sinusoidal, learned) others.
  std::optional<int64_t> position_offset;
};

// One input's outputs. Float arrays are row-major; `tokens` is the input's own length (no
// padding rows), `dimension` Model::dimension(), `heads` attention_heads().
struct ForwardOutput {
  // [dimension], L2-normalized when the folder (a sentence-transformers Normalize) or
  // Options::normalize asks, as Model::embed gives it; empty with pooling none.
  std::vector<float> pooled;
  std::vector<float> logits;             // [labels().size()]; empty without a classification head
  std::vector<float> probabilities;      // softmax of the logits; empty without a head
  int64_t label = -1;                    // argmax of the logits; -1 without a head
  std::vector<float> last_hidden_state;  // [tokens, dimension]: the encoder's output
  // With output_hidden_states: num_layers() + 1 entries of [tokens, dimension], the embeddings'
  // output (the first layer's input) first and the encoder's output (last_hidden_state) last.
  std::vector<std::vector<float>> hidden_states;
  // With output_attentions: num_layers() entries of [heads, tokens, tokens], row q of head h the
  // probabilities of token q's attention over the tokens (each row sums to 1).
  std::vector<std::vector<float>> attentions;
};

// The encoder on the encodings as given (their ids and token types; no tokenizer, no special
// tokens added, no check()): one forward pass over the whole batch, padded to its longest
// input when the request keeps hidden states or attentions, packed otherwise (the same numbers
// up to float rounding). Outputs are in the batch's order; the caller picks the batch's size. Error
// kBadInput for an empty encoding, one a learned position table cannot hold at the offset, or an
// input whose outputs overflow float32 (named "input N", from 1).
std::vector<ForwardOutput> forward(Model& model, const std::vector<Encoding>& batch,
                                   const ForwardRequest& request = {});

// Every id inside the vocabulary, and the length within what the model allows at its position
// offset (a learned table's rows past the offset); `what` names the input in errors ("sentence
// 2: id 900 (position 3) is outside the vocabulary [0, 512)"). With Options::truncate, an input
// that is too long is cut to fit instead (the template's special tokens stay, the longer text
// loses tokens from its end). Error kBadInput otherwise.
void check(const Model& model, Encoding& encoding, const std::string& what);

// The position offset of the passes and checks from now on (0 to max_position_offset()), as
// Options::position_offset at load; Error kBadInput outside.
void set_position_offset(Model& model, int64_t position_offset);
int64_t position_offset(const Model& model);
// Error kBadInput ("position offset 70000 is outside [0, 65536]") unless 0 <= offset <=
// max_position_offset() (<tinyenc/options.h>): an offset checked before any model is loaded.
void validate_position_offset(int64_t position_offset);

// The name of the model's position encoding: "learned", "sinusoidal", "rope", "alibi",
// "relative" (T5's buckets) or "none".
std::string position_encoding(const Model& model);
// Whether it is a learned table that ends (max_tokens() rows) rather than computed positions.
bool has_position_table(const Model& model);
int64_t num_layers(const Model& model);       // encoder layers
int64_t attention_heads(const Model& model);  // heads per layer
std::string folder(const Model& model);       // the folder it was loaded from, as given
// The label name of an id: labels()[id], or "LABEL_<id>" outside them.
std::string label_name(const Model& model, int64_t id);

// Whether the folder's tokenizer loaded: Tokenizer::of(model) (<tinyenc/tokenizer.h>) gives it,
// for the texts' encodings; without one, forward() runs raw ids.
bool has_tokenizer(const Model& model);

}  // namespace tinyenc
