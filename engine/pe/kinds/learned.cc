// learned (BERT): a trained row per position added to the token embeddings. RoBERTa numbers
// positions from padding_idx + 1, so its table serves padding_idx + 1 fewer tokens.
#include <stdexcept>
#include <string>

#include "engine/pe/registry.h"

namespace tinyenc {
namespace {

class Learned : public PositionEncoding {
 public:
  Learned(const EncoderShape& config, const float* table)
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

void validate_learned(const EncoderShape& config, const FieldNames& names) {
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

PositionEncodingType learned_position_encoding() {
  PositionEncodingType type;
  type.name = "learned";
  type.summary = "a trained row per position added to the token embeddings (BERT)";
  type.add_parameter(integer_parameter("max_positions", 512, 1, ">= 1", "rows of the table",
                                       "max_position_embeddings"),
                     field_access<&PositionEncodingConfig::max_positions>());
  type.add_parameter(integer_parameter("padding_idx", -1, -1, ">= -1, < max_positions - 1",
                                       "RoBERTa style: positions count from padding_idx + 1 and "
                                       "padding gets padding_idx; -1 numbers them 0, 1, 2, ...",
                                       "pad_token_id"),
                     field_access<&PositionEncodingConfig::padding_idx>());
  type.adds_to_embeddings = true;
  type.reads_position_table = true;
  type.figure = {"#4e79a7", "triangle-up", "2 3"};
  type.validate = validate_learned;
  type.make = [](const EncoderShape& shape,
                 const PositionEncodingWeights& weights) -> std::unique_ptr<PositionEncoding> {
    return std::make_unique<Learned>(shape, weights.position_embeddings);
  };
  type.summarize = [](const EncoderShape& shape) -> SummaryFields {
    const PositionEncodingConfig& pe = shape.position_encoding;
    return {{"max_positions", pe.max_positions},
            {"padding_idx", pe.padding_idx >= 0 ? SummaryValue(pe.padding_idx) : SummaryValue()}};
  };
  type.describe = [](const SummaryFields& fields) {
    const SummaryValue& padding_idx = summary_field(fields, "padding_idx");
    std::string text = summary_number(summary_field(fields, "max_positions")) + " positions";
    text += std::holds_alternative<std::monostate>(padding_idx)
                ? std::string(" counted from 0, no padding_idx")
                : ", padding_idx " + summary_number(padding_idx) + ": positions start at " +
                      std::to_string(std::get<int64_t>(padding_idx) + 1);
    return text;
  };
  return type;
}

}  // namespace tinyenc
