// rope (Su et al., RoFormer): q and k rotated by position-dependent angles before the scores, so
// q_m . k_n depends on m - n only.
#include <string>

#include "engine/pe/kernels.h"
#include "engine/pe/registry.h"
#include "engine/pe/rope.h"

namespace tinyenc {
namespace {

class Rope : public PositionEncoding {
 public:
  explicit Rope(const EncoderConfig& config)
      : table_(config.rotary_dim(), config.position_encoding.rope.theta),
        heads_(config.heads),
        head_dim_(config.head_dim()),
        pairing_(config.position_encoding.rope.pairing) {}

  void prepare(int64_t seq, int64_t position_offset) override {
    table_.reserve(seq + position_offset);
  }

  void rotate_queries_keys(const QueryKeyRows& rows) const override {
    RopeArgs rope;
    rope.tokens = rows.tokens;
    rope.heads = heads_;
    rope.head_dim = head_dim_;
    rope.rotary_dim = table_.rotary_dim();
    rope.pairing = pairing_;
    rope.q = rows.q;
    rope.q_stride = rows.stride;
    rope.k = rows.k;
    rope.k_stride = rows.stride;
    rope.position_ids = rows.position_ids;
    rope.cos = table_.cos();
    rope.sin = table_.sin();
    rope.table_positions = table_.positions();
    tinyenc::rotate_queries_keys(rope);
  }

 private:
  RopeTable table_;
  int64_t heads_;
  int64_t head_dim_;
  RopePairing pairing_;
};

void validate_rope(const EncoderConfig& config, const FieldNames& names) {
  const RopeParams& rope = config.position_encoding.rope;
  if (!(rope.theta > 1.0)) throw InvalidField(names.parameter("theta"), "must be > 1");
  if (rope.rotary_dim < 0 || rope.rotary_dim % 2 != 0) {
    throw InvalidField(names.parameter("rotary_dim"), "must be even");
  }
  if (config.heads <= 0) return;
  const int64_t head_dim = config.head_dim();
  if (rope.rotary_dim > head_dim) {
    throw InvalidField(names.parameter("rotary_dim"),
                       std::to_string(rope.rotary_dim) + " exceeds head_dim " +
                           std::to_string(head_dim) + " (" + std::string(names.d_model) + " / " +
                           std::string(names.heads) + ")");
  }
  if (config.rotary_dim() % 2 != 0) {
    throw InvalidField(std::string(names.d_model),
                       "head_dim " + std::to_string(config.d_model) + " / " +
                           std::to_string(config.heads) + " = " + std::to_string(head_dim) +
                           " is odd, but RoPE rotates pairs of dimensions");
  }
}

}  // namespace

const PositionEncodingType& rope_position_encoding() {
  static const PositionEncodingType type{
      PositionEncodingKind::kRope, "rope", validate_rope,
      [](const EncoderConfig& config, const EncoderWeights&) -> std::unique_ptr<PositionEncoding> {
        return std::make_unique<Rope>(config);
      }};
  return type;
}

}  // namespace tinyenc
