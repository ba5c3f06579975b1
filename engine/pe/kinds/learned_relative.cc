// learned_relative (MPNet, Song et al. 2020): a learned absolute table added to the embeddings,
// numbered from padding_idx + 1 as RoBERTa's, and a bucketed relative bias on the attention
// scores, one [num_buckets, heads] table shared by all layers. MPNetAttention's
// relative_position_bucket is T5's bidirectional bucket (j > i in the upper half, log-spaced past
// num_buckets/4, max_distance 128), so this kind is the learned and relative kinds at once, and
// runs their hooks and kernels unchanged.
#include <memory>
#include <utility>

#include "engine/pe/registry.h"

namespace tinyenc {

PositionEncodingType learned_position_encoding();
PositionEncodingType relative_position_encoding();

namespace {

const PositionEncodingType& learned() {
  return position_encoding_type(PositionEncodingKind::kLearned);
}
const PositionEncodingType& relative() {
  return position_encoding_type(PositionEncodingKind::kRelative);
}

class LearnedRelative : public PositionEncoding {
 public:
  LearnedRelative(const EncoderShape& config, const PositionEncodingWeights& weights)
      : learned_(learned().make(config, weights)), relative_(relative().make(config, weights)) {}

  void prepare(int64_t seq, int64_t position_offset) override {
    learned_->prepare(seq, position_offset);
    relative_->prepare(seq, position_offset);
  }
  PositionTable embedding_rows() const override { return learned_->embedding_rows(); }
  void add_score_bias(float* scores, int64_t batch, int64_t seq) const override {
    relative_->add_score_bias(scores, batch, seq);
  }
  bool adds_score_bias() const override { return true; }
  int64_t parameter_count() const override {
    return learned_->parameter_count() + relative_->parameter_count();
  }

 private:
  std::unique_ptr<PositionEncoding> learned_;
  std::unique_ptr<PositionEncoding> relative_;
};

void validate_learned_relative(const EncoderShape& config, const FieldNames& names) {
  learned().validate(config, names);
  relative().validate(config, names);
}

}  // namespace

PositionEncodingType learned_relative_position_encoding() {
  const PositionEncodingType learned_type = learned_position_encoding();
  const PositionEncodingType relative_type = relative_position_encoding();
  PositionEncodingType type;
  type.name = "learned_relative";
  type.summary =
      "learned and relative together: a position table added to the embeddings and "
      "a bucketed bias on the scores (MPNet, Song et al. 2020)";
  for (const PositionEncodingType* part : {&learned_type, &relative_type}) {
    for (size_t i = 0; i < part->parameters.size(); ++i) {
      type.add_parameter(part->parameters[i], part->parameter_access[i]);
    }
  }
  type.adds_to_embeddings = true;
  type.biases_attention = true;
  type.reads_position_table = true;
  type.reads_relative_bias_table = true;
  type.figure = {"#bbbbbb", "circle", "3 3"};
  type.validate = validate_learned_relative;
  type.make = [](const EncoderShape& shape,
                 const PositionEncodingWeights& weights) -> std::unique_ptr<PositionEncoding> {
    return std::make_unique<LearnedRelative>(shape, weights);
  };
  type.summarize = [](const EncoderShape& shape) {
    SummaryFields fields = learned().summary_fields(shape);
    for (auto& field : relative().summary_fields(shape)) fields.push_back(std::move(field));
    return fields;
  };
  type.describe = [](const SummaryFields& fields) {
    return learned().summary_text(fields) + "; " + relative().summary_text(fields);
  };
  return type;
}

}  // namespace tinyenc
