// alibi (Press et al.): a per-head linear penalty -m_h * |j - i| on the attention scores.
#include <vector>

#include "engine/pe/attention_bias.h"
#include "engine/pe/kernels.h"
#include "engine/pe/registry.h"

namespace tinyenc {
namespace {

class Alibi : public PositionEncoding {
 public:
  explicit Alibi(const EncoderShape& config)
      : heads_(config.heads), slopes_(alibi_slopes(config.heads)) {}

  // The bias depends on j - i only: a position offset changes nothing, not even rounding.
  void prepare(int64_t seq, int64_t /*position_offset*/) override {
    if (seq == seq_) return;
    distance_bias_ = alibi_distance_bias(slopes_, seq, seq);
    seq_ = seq;
  }
  // seq may be below the prepared length (a packed batch's shorter runs): the table's centre
  // stays where prepare() put it.
  void add_score_bias(float* scores, int64_t batch, int64_t seq) const override {
    add_distance_bias({scores, batch, heads_, seq, seq, distance_bias_.data(), seq_, seq_});
  }
  bool adds_score_bias() const override { return true; }

 private:
  int64_t heads_;
  std::vector<float> slopes_;
  int64_t seq_ = 0;
  std::vector<float> distance_bias_;  // [heads, 2 seq - 1]
};

}  // namespace

PositionEncodingType alibi_position_encoding() {
  PositionEncodingType type;
  type.name = "alibi";
  type.summary = "a per-head linear penalty -m_h * |j - i| on the attention scores (Press et al.)";
  type.relative = true;
  type.biases_attention = true;
  type.figure = {"#59a14f", "triangle-down", "4 2"};
  type.validate = [](const EncoderShape&, const FieldNames&) {};
  type.make = [](const EncoderShape& shape,
                 const PositionEncodingWeights&) -> std::unique_ptr<PositionEncoding> {
    return std::make_unique<Alibi>(shape);
  };
  type.summarize = [](const EncoderShape& shape) -> SummaryFields {
    std::vector<double> slopes;
    for (float slope : alibi_slopes(shape.heads)) slopes.push_back(static_cast<double>(slope));
    return {{"heads", shape.heads}, {"slopes", std::move(slopes)}};
  };
  type.describe = [](const SummaryFields& fields) {
    std::string text = summary_number(summary_field(fields, "heads")) + " heads, slopes";
    for (double slope : std::get<std::vector<double>>(summary_field(fields, "slopes"))) {
      text += ' ';
      text += summary_number(slope);
    }
    return text;
  };
  return type;
}

}  // namespace tinyenc
