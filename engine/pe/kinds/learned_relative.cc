// learned_relative (MPNet, Song et al. 2020): a learned absolute table added to the embeddings,
// numbered from padding_idx + 1 as RoBERTa's, and a bucketed relative bias on the attention
// scores, one [num_buckets, heads] table shared by all layers. MPNetAttention's
// relative_position_bucket is T5's bidirectional bucket (j > i in the upper half, log-spaced past
// num_buckets/4, max_distance 128), so this kind is the learned and relative kinds at once, and
// runs their hooks and kernels unchanged.
#include <memory>

#include "engine/pe/registry.h"

namespace tinyenc {

const PositionEncodingType& learned_position_encoding();
const PositionEncodingType& relative_position_encoding();

namespace {

class LearnedRelative : public PositionEncoding {
 public:
  LearnedRelative(const EncoderConfig& config, const EncoderWeights& weights)
      : learned_(learned_position_encoding().make(config, weights)),
        relative_(relative_position_encoding().make(config, weights)) {}

  void prepare(int64_t seq, int64_t position_offset) override {
    learned_->prepare(seq, position_offset);
    relative_->prepare(seq, position_offset);
  }
  PositionTable embedding_rows() const override { return learned_->embedding_rows(); }
  void add_score_bias(float* scores, int64_t batch, int64_t seq) const override {
    relative_->add_score_bias(scores, batch, seq);
  }
  int64_t parameter_count() const override {
    return learned_->parameter_count() + relative_->parameter_count();
  }

 private:
  std::unique_ptr<PositionEncoding> learned_;
  std::unique_ptr<PositionEncoding> relative_;
};

void validate_learned_relative(const EncoderConfig& config, const FieldNames& names) {
  learned_position_encoding().validate(config, names);
  relative_position_encoding().validate(config, names);
}

}  // namespace

const PositionEncodingType& learned_relative_position_encoding() {
  static const PositionEncodingType type{
      PositionEncodingKind::kLearnedRelative, "learned_relative", validate_learned_relative,
      [](const EncoderConfig& config,
         const EncoderWeights& weights) -> std::unique_ptr<PositionEncoding> {
        return std::make_unique<LearnedRelative>(config, weights);
      }};
  return type;
}

}  // namespace tinyenc
