// relative (Raffel et al., T5): a learned bias per (bucket of j - i, head) on the attention
// scores, one table shared by all layers.
#include <stdexcept>
#include <vector>

#include "engine/pe/attention_bias.h"
#include "engine/pe/kernels.h"
#include "engine/pe/registry.h"

namespace tinyenc {
namespace {

class Relative : public PositionEncoding {
 public:
  Relative(const EncoderShape& config, const float* table)
      : heads_(config.heads), params_(config.position_encoding.relative), table_(table) {
    if (!table) throw std::invalid_argument("missing weights: relative attention bias");
  }

  // The bias depends on j - i only: a position offset changes nothing, not even rounding.
  void prepare(int64_t seq, int64_t /*position_offset*/) override {
    if (seq == seq_) return;
    distance_bias_ = relative_distance_bias(table_, heads_, params_, seq, seq);
    seq_ = seq;
  }
  // seq may be below the prepared length (a packed batch's shorter runs): the table's centre
  // stays where prepare() put it.
  void add_score_bias(float* scores, int64_t batch, int64_t seq) const override {
    add_distance_bias({scores, batch, heads_, seq, seq, distance_bias_.data(), seq_, seq_});
  }
  bool adds_score_bias() const override { return true; }
  int64_t parameter_count() const override { return params_.num_buckets * heads_; }

 private:
  int64_t heads_;
  RelativeParams params_;
  const float* table_;  // [num_buckets, heads]
  int64_t seq_ = 0;
  std::vector<float> distance_bias_;  // [heads, 2 seq - 1]
};

void validate_relative(const EncoderShape& config, const FieldNames& names) {
  const RelativeParams& relative = config.position_encoding.relative;
  if (relative.num_buckets < 4) throw InvalidField(names.parameter("num_buckets"), "must be >= 4");
  if (relative.max_distance <= relative.num_buckets / 4) {
    throw InvalidField(names.parameter("max_distance"), "must be > num_buckets / 4");
  }
}

}  // namespace

PositionEncodingType relative_position_encoding() {
  PositionEncodingType type;
  type.name = "relative";
  type.summary =
      "a learned bias per (bucket of j - i, head) on the attention scores (Raffel et al., T5)";
  type.add_parameter(
      integer_parameter("num_buckets", 32, 4, ">= 4",
                        "buckets of j - i: half for each direction, exact up to "
                        "a quarter, log-spaced past it",
                        "relative_attention_num_buckets"),
      field_access<&PositionEncodingConfig::relative, &RelativeParams::num_buckets>());
  type.add_parameter(
      integer_parameter("max_distance", 128, 1, "> num_buckets / 4",
                        "the distance from which on every |j - i| shares the "
                        "last bucket"),
      field_access<&PositionEncodingConfig::relative, &RelativeParams::max_distance>());
  type.relative = true;
  type.biases_attention = true;
  type.reads_relative_bias_table = true;
  type.figure = {"#e15759", "plus", "1 3"};
  type.validate = validate_relative;
  type.make = [](const EncoderShape& shape,
                 const PositionEncodingWeights& weights) -> std::unique_ptr<PositionEncoding> {
    return std::make_unique<Relative>(shape, weights.relative_bias);
  };
  type.describe = [](const SummaryFields& fields) {
    return summary_number(summary_field(fields, "num_buckets")) + " buckets, max_distance " +
           summary_number(summary_field(fields, "max_distance")) +
           ", one bias table shared by the layers";
  };
  return type;
}

}  // namespace tinyenc
