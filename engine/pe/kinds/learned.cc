// learned (BERT): a trained row per position added to the token embeddings. RoBERTa numbers
// positions from padding_idx + 1, so its table serves padding_idx + 1 fewer tokens.
#include <stdexcept>
#include <string>

#include "engine/pe/registry.h"

namespace tinyenc {
namespace {

class Learned : public PositionEncoding {
 public:
  Learned(const EncoderConfig& config, const float* table)
      : table_(table),
        d_model_(config.d_model),
        max_positions_(config.position_encoding.max_positions),
        padding_idx_(config.position_encoding.padding_idx) {
    if (!table) throw std::invalid_argument("missing weights: position embeddings");
  }

  void prepare(int64_t seq, int64_t position_offset) override {
    const int64_t first = padding_idx_ + 1 + position_offset;
    if (first + seq <= max_positions_) return;
    if (position_offset == 0) {
      throw std::out_of_range("input of " + std::to_string(seq) + " tokens is longer than the " +
                              std::to_string(max_positions_ - padding_idx_ - 1) +
                              " positions the model has (max_position_embeddings)");
    }
    // No row to fall back on: a position past the table was never trained, so there is no
    // answer, only a refusal.
    throw std::out_of_range("input of " + std::to_string(seq) + " tokens at position offset " +
                            std::to_string(position_offset) + " needs rows " +
                            std::to_string(first) + ".." + std::to_string(first + seq - 1) +
                            " of the learned position table, which has " +
                            std::to_string(max_positions_) + " rows (max_position_embeddings)");
  }
  PositionTable embedding_rows() const override { return {table_, max_positions_}; }
  int64_t parameter_count() const override { return max_positions_ * d_model_; }

 private:
  const float* table_;
  int64_t d_model_;
  int64_t max_positions_;
  int64_t padding_idx_;
};

void validate_learned(const EncoderConfig& config, const FieldNames& names) {
  const PositionEncodingConfig& pe = config.position_encoding;
  if (pe.max_positions < 1) throw InvalidField(names.parameter("max_positions"), "must be >= 1");
  if (pe.padding_idx < -1) throw InvalidField(names.parameter("padding_idx"), "must be >= -1");
  if (pe.padding_idx + 1 >= pe.max_positions) {
    throw InvalidField(
        names.parameter("padding_idx"),
        "leaves no rows of the " + std::to_string(pe.max_positions) + "-row table for positions");
  }
}

}  // namespace

const PositionEncodingType& learned_position_encoding() {
  static const PositionEncodingType type{
      PositionEncodingKind::kLearned, "learned", validate_learned,
      [](const EncoderConfig& config,
         const EncoderWeights& weights) -> std::unique_ptr<PositionEncoding> {
        return std::make_unique<Learned>(config, weights.position_embeddings);
      }};
  return type;
}

}  // namespace tinyenc
