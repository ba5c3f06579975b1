// What a position-encoding kind does to the forward pass: one object per kind (engine/pe/kinds/),
// overriding the hooks the kind has; the others do nothing.
//   prepare              make tables ready for inputs of `seq` tokens whose positions start
//                        `position_offset` later than usual, refuse those it cannot number
//   embedding_rows       a table whose rows are added to the token embeddings (sinusoidal, learned)
//   rotate_queries_keys  rotate q and k in place before the scores (rope)
//   add_score_bias       add a bias depending only on the distance j - i to the attention scores
//                        (alibi, relative)
#pragma once

#include <cstdint>

namespace tinyenc {

// Rows [rows, d_model] indexed by position id; a null table adds nothing.
struct PositionTable {
  const float* table = nullptr;
  int64_t rows = 0;
};

// q and k of `tokens` tokens inside one buffer: token t starts at q + t * stride (and k + t *
// stride), heads one after another.
struct QueryKeyRows {
  float* q = nullptr;
  float* k = nullptr;
  int64_t stride = 0;
  int64_t tokens = 0;
  const int32_t* position_ids = nullptr;  // [tokens]
};

class PositionEncoding {
 public:
  virtual ~PositionEncoding() = default;

  // Throws std::out_of_range when an input of `seq` tokens, numbered from position_offset (the
  // shift of EncoderInput::position_offset), reaches past the positions the kind can number.
  // Kinds that depend only on i - j (alibi, relative) ignore the offset: that is the point.
  virtual void prepare(int64_t /*seq*/, int64_t /*position_offset*/) {}
  void prepare(int64_t seq) { prepare(seq, 0); }
  virtual PositionTable embedding_rows() const { return {}; }
  virtual void rotate_queries_keys(const QueryKeyRows& /*rows*/) const {}
  // scores are dense [batch, heads, seq, seq], seq at most what prepare() was given.
  virtual void add_score_bias(float* /*scores*/, int64_t /*batch*/, int64_t /*seq*/) const {}
  // Whether add_score_bias adds anything: where it does not, attention may take its scores, softmax
  // and context in one pass that never stores the scores.
  virtual bool adds_score_bias() const { return false; }

  // Learned parameters the kind adds to the model.
  virtual int64_t parameter_count() const { return 0; }
};

}  // namespace tinyenc
