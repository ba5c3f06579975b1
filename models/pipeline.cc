#include "models/pipeline.h"

#include "tokenizer/long_text.h"

#include <algorithm>
#include <cstdio>
#include <new>
#include <numeric>
#include <stdexcept>

#include "engine/io/quoted.h"
#include "models/forward_memory.h"
#include "models/linear_choice_book.h"
#include "tokenizer/load_tokenizer.h"

namespace tinyenc {

LoadedModel load_user_model(const std::filesystem::path& dir, std::string_view dtype) {
  try {
    return load_model(dir, dtype);
  } catch (const std::runtime_error& e) {
    throw std::invalid_argument(e.what());
  }
}

Pipeline::Pipeline(const std::filesystem::path& model_dir, const PipelineOptions& options)
    : dir_(model_dir), options_(options), model_(load_user_model(model_dir, options.dtype)) {
  if (!model_.unused_tensors.empty()) {
    std::string names;
    for (const std::string& name : model_.unused_tensors) names += " " + name;
    std::fprintf(stderr, "tinyenc: warning: %s: %zu tensors not used by this model:%s\n",
                 model_dir.c_str(), model_.unused_tensors.size(), names.c_str());
  }
  try {
    tokenizer_ = load_tokenizer_from_folder(model_dir);
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {  // std::invalid_argument for a bad file, or one unreadable
    if (options.require_tokenizer) {
      throw std::invalid_argument(std::string(e.what()) + options.tokenizer_hint);
    }
  }
  start();
}

Pipeline::Pipeline(const std::filesystem::path& name, LoadedModel model,
                   const PipelineOptions& options)
    : dir_(name), options_(options), model_(std::move(model)) {
  start();
}

void Pipeline::start() {
  const PipelineOptions& options = options_;
  const std::filesystem::path& model_dir = dir_;
  const EncoderConfig& config = model_.config.encoder;
  if (tokenizer_ && tokenizer_->vocab_size() > config.vocab_size) {
    throw std::invalid_argument(
        (model_dir / "config.json").string() + ": vocab_size: the tokenizer has " +
        std::to_string(tokenizer_->vocab_size()) + " tokens but the embedding table only " +
        std::to_string(config.vocab_size) + " rows");
  }
  EncoderConfig encoder_config = config;
  if (options.pooling) {
    if (*options.pooling == Pooling::kPooler && !config.has_pooler) {
      throw std::invalid_argument("--pooling pooler: " + model_dir.string() +
                                  " has no pooler weights");
    }
    encoder_config.pooling = *options.pooling;
  }
  install_linear_choice_book();
  encoder_ = std::make_unique<Encoder>(encoder_config, model_.weights);
  set_position_offset(options.position_offset);
}

void Pipeline::set_position_offset(int64_t position_offset) {
  check_position_offset(position_offset);
  options_.position_offset = position_offset;
}

std::string Pipeline::label_name(int64_t label) const {
  const std::vector<std::string>& labels = model_.config.labels;
  if (label >= 0 && label < static_cast<int64_t>(labels.size())) return labels[label];
  return "LABEL_" + std::to_string(label);
}

void Pipeline::check(Encoding& encoding, const std::string& what) const {
  const int64_t vocab = model_.config.encoder.vocab_size;
  for (size_t i = 0; i < encoding.size(); ++i) {
    if (encoding.ids[i] < 0 || encoding.ids[i] >= vocab) {
      throw std::out_of_range(what + ": id " + std::to_string(encoding.ids[i]) + " (position " +
                              std::to_string(i) + ") is outside the vocabulary [0, " +
                              std::to_string(vocab) + ")");
    }
  }
  const int64_t model_limit = model_.config.max_sequence_length;
  const int64_t tokens = static_cast<int64_t>(encoding.size());
  if (tokens == 0) throw std::invalid_argument(what + ": no tokens");
  // A learned table has no rows past its end, and a position offset K takes K of them. The other
  // kinds compute any position: their declared length stays what it is.
  const int64_t offset = has_position_table(model_.config.encoder.position_encoding.kind)
                             ? options_.position_offset
                             : 0;
  const int64_t limit = model_limit > 0 ? model_limit - offset : 0;
  if (model_limit <= 0 || tokens <= limit) return;
  if (!options_.truncate || limit < 1) {
    std::string message = what + ": " + std::to_string(tokens) +
                          " tokens, longer than the model's " + std::to_string(model_limit) +
                          " (max_position_embeddings)";
    if (offset > 0) {
      message = what + ": " + std::to_string(tokens) + " tokens at position offset " +
                std::to_string(offset) + " need " + std::to_string(tokens + offset) +
                " rows of the learned position table, which has " + std::to_string(model_limit) +
                " (max_position_embeddings)";
    }
    if (!options_.truncate_hint.empty() && limit >= 1) {
      message.append("; ").append(options_.truncate_hint);
    }
    throw std::invalid_argument(message);
  }
  // Hugging Face's "longest_first": the template's special tokens all stay, and one token at a
  // time comes off the end of the longer text (the second on a tie) until the rest fits.
  int64_t first = 0, second = 0;
  for (TokenSource source : encoding.sources) {
    first += source == TokenSource::kFirst;
    second += source == TokenSource::kSecond;
  }
  const int64_t specials = tokens - first - second;
  if (specials >= limit) {
    throw std::invalid_argument(
        what + ": the template's " + std::to_string(specials) +
        " special tokens leave no room for text within the model's " + std::to_string(limit) +
        (offset > 0 ? " positions left at position offset " + std::to_string(offset)
                    : std::string()));
  }
  while (first + second + specials > limit) {
    --(first > second ? first : second);
  }
  Encoding cut;
  int64_t kept_first = 0, kept_second = 0;
  for (size_t i = 0; i < encoding.size(); ++i) {
    const TokenSource source = encoding.sources[i];
    if (source == TokenSource::kFirst && kept_first++ >= first) continue;
    if (source == TokenSource::kSecond && kept_second++ >= second) continue;
    cut.append(encoding.tokens[i], encoding.ids[i], encoding.token_type_ids[i], source,
               encoding.offsets[i]);
  }
  encoding = std::move(cut);
}

Encoding Pipeline::tokenize(const std::string& text, bool pair) const {
  if (!tokenizer_) throw std::invalid_argument(dir_.string() + ": no tokenizer for texts");
  if (!pair) return tokenizer_->encode(text);
  const size_t tab = text.find('\t');
  if (tab == std::string::npos) {
    throw std::invalid_argument("--pair: no tab between the two texts of " + in_quotes(text));
  }
  return tokenizer_->encode_pair(std::string_view(text).substr(0, tab),
                                 std::string_view(text).substr(tab + 1));
}

Encoding Pipeline::tokenize_to_keep(const std::string& text, bool pair) const {
  const int64_t limit = model_.config.max_sequence_length;
  if (pair || limit <= 0 || !tokenizer_) return tokenize(text, pair);
  PrefixEncoding prefix = encode_prefix(*tokenizer_, text, limit);
  if (prefix.whole || options_.truncate) return std::move(prefix.encoding);
  std::string message =
      "text " + in_quotes(text) + ": " +
      (prefix.enough ? "more than " + std::to_string(prefix.encoding.size()) + " tokens"
                     : std::to_string(text.size()) + " bytes") +
      ", longer than the model's " + std::to_string(limit) + " tokens (max_position_embeddings)";
  if (!options_.truncate_hint.empty()) message.append("; ").append(options_.truncate_hint);
  throw std::invalid_argument(message);
}

Encoding Pipeline::encode(const std::string& text, bool pair) const {
  Encoding encoding = tokenize_to_keep(text, pair);
  check(encoding, "text " + in_quotes(text));
  return encoding;
}

Encoding Pipeline::encode_ids(const std::vector<int32_t>& ids) const {
  Encoding encoding;
  for (int32_t id : ids) {
    // Ids the tokenizer does not know (the check below refuses those outside the embedding
    // table) show as #<id>.
    std::string token = "#";
    if (tokenizer_ && id >= 0 && id < tokenizer_->vocab_size()) {
      token = tokenizer_->id_to_token(id);
    } else {
      token.append(std::to_string(id));
    }
    encoding.append(std::move(token), id, 0, TokenSource::kFirst, {});
  }
  check(encoding, "--ids");
  return encoding;
}

EncoderOutput Pipeline::forward(const std::vector<const Encoding*>& batch,
                                const ForwardOptions& options) {
  const int64_t size = static_cast<int64_t>(batch.size());
  int64_t seq = 0;
  for (const Encoding* encoding : batch) seq = std::max<int64_t>(seq, encoding->size());
  const int32_t pad = tokenizer_ ? tokenizer_->special_ids().pad.value_or(0) : 0;
  std::vector<int32_t> ids(static_cast<size_t>(size * seq), pad);
  std::vector<int32_t> types(ids.size(), 0);
  std::vector<int32_t> lengths;
  for (int64_t b = 0; b < size; ++b) {
    const Encoding& encoding = *batch[static_cast<size_t>(b)];
    std::copy(encoding.ids.begin(), encoding.ids.end(), ids.begin() + b * seq);
    std::copy(encoding.token_type_ids.begin(), encoding.token_type_ids.end(),
              types.begin() + b * seq);
    lengths.push_back(static_cast<int32_t>(encoding.size()));
  }
  check_forward_memory(encoder_->config(), size, seq,
                       "a batch of " + std::to_string(size) + " texts");
  const bool with_types = model_.config.encoder.type_vocab_size > 0;
  EncoderInput input{size, seq, ids.data(), lengths.data(), with_types ? types.data() : nullptr};
  input.position_offset = options_.position_offset;
  return encoder_->forward(input, options);
}

std::vector<TextOutput> Pipeline::run(const std::vector<Encoding>& batch, bool keep_hidden,
                                      const ForwardOptions& options) {
  if (batch.empty()) return {};
  if (options.attention_probabilities) {
    std::vector<const Encoding*> pointers;
    for (const Encoding& encoding : batch) pointers.push_back(&encoding);
    const EncoderOutput output = forward(pointers, options);
    computed_tokens_ = output.batch * output.seq;
    return split(batch, {}, output, keep_hidden);
  }
  // Packed, shortest first (stable), so that equal lengths form runs that attend together.
  std::vector<size_t> order(batch.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return batch[a].size() < batch[b].size(); });
  std::vector<int32_t> ids, types, lengths;
  int64_t seq = 0;
  for (size_t i : order) {
    const Encoding& encoding = batch[i];
    ids.insert(ids.end(), encoding.ids.begin(), encoding.ids.end());
    types.insert(types.end(), encoding.token_type_ids.begin(), encoding.token_type_ids.end());
    lengths.push_back(static_cast<int32_t>(encoding.size()));
    seq = std::max<int64_t>(seq, encoding.size());
  }
  const int64_t size = static_cast<int64_t>(batch.size());
  check_forward_memory(encoder_->config(), size, seq,
                       "a batch of " + std::to_string(size) + " texts");
  EncoderInput input;
  input.batch = size;
  input.ids = ids.data();
  input.lengths = lengths.data();
  input.token_types = model_.config.encoder.type_vocab_size > 0 ? types.data() : nullptr;
  input.packed = true;
  input.position_offset = options_.position_offset;
  EncoderOutput output;
  try {
    output = encoder_->forward(input, options);
  } catch (const NonFiniteOutputError& e) {
    // Name the sequence as the caller numbers it, not as the packed batch did.
    throw NonFiniteOutputError(static_cast<int64_t>(order[static_cast<size_t>(e.sequence)]),
                               e.what());
  }
  computed_tokens_ = static_cast<int64_t>(ids.size());
  return split(batch, order, output, keep_hidden);
}

std::vector<TextOutput> Pipeline::split(const std::vector<Encoding>& batch,
                                        const std::vector<size_t>& order,
                                        const EncoderOutput& output, bool keep_hidden) const {
  const int64_t d = output.d_model;
  const int64_t labels = model_.config.encoder.num_labels;
  std::vector<TextOutput> results(batch.size());
  for (int64_t b = 0; b < output.batch; ++b) {
    // Row b of the output answers input order[b] (packed) or b (padded).
    const size_t input = order.empty() ? static_cast<size_t>(b) : order[static_cast<size_t>(b)];
    TextOutput& result = results[input];
    result.encoding = batch[input];
    if (!output.pooled.empty()) {
      result.embedding.assign(output.pooled.begin() + b * d, output.pooled.begin() + (b + 1) * d);
    }
    if (labels > 0 && !output.logits.empty()) {  // pooling none leaves the head out
      result.logits.assign(output.logits.begin() + b * labels,
                           output.logits.begin() + (b + 1) * labels);
      result.probabilities.assign(output.probabilities.begin() + b * labels,
                                  output.probabilities.begin() + (b + 1) * labels);
      result.label =
          std::max_element(result.logits.begin(), result.logits.end()) - result.logits.begin();
    }
    if (keep_hidden) {
      const int64_t start =
          output.starts.empty() ? b * output.seq : output.starts[static_cast<size_t>(b)];
      const auto begin = output.last_hidden.begin() + start * d;
      result.hidden.assign(begin, begin + static_cast<int64_t>(result.encoding.size()) * d);
    }
  }
  return results;
}

}  // namespace tinyenc
