// alibi (Press et al.): a per-head linear penalty -m_h * |j - i| on the attention scores.
#include <vector>

#include "engine/pe/attention_bias.h"
#include "engine/pe/kernels.h"
#include "engine/pe/registry.h"

namespace tinyenc {
namespace {

class Alibi : public PositionEncoding {
 public:
  explicit Alibi(const EncoderConfig& config)
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

 private:
  int64_t heads_;
  std::vector<float> slopes_;
  int64_t seq_ = 0;
  std::vector<float> distance_bias_;  // [heads, 2 seq - 1]
};

}  // namespace

const PositionEncodingType& alibi_position_encoding() {
  static const PositionEncodingType type{
      PositionEncodingKind::kAlibi, "alibi", [](const EncoderConfig&, const FieldNames&) {},
      [](const EncoderConfig& config, const EncoderWeights&) -> std::unique_ptr<PositionEncoding> {
        return std::make_unique<Alibi>(config);
      }};
  return type;
}

}  // namespace tinyenc
