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
  explicit Rope(const EncoderShape& config)
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

void validate_rope(const EncoderShape& config, const FieldNames& names) {
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

PositionEncodingType rope_position_encoding() {
  PositionEncodingType type;
  type.name = "rope";
  type.summary = "q and k rotated by position-dependent angles inside attention (Su et al.)";
  type.add_parameter(choice_parameter("pairing", {"half", "interleaved"},
                                      "which dimensions rotate together: i with i + rotary_dim/2 "
                                      "(half: GPT-NeoX, Hugging Face) or 2i with 2i + 1 "
                                      "(interleaved: RoFormer)"),
                     field_access<&PositionEncodingConfig::rope, &RopeParams::pairing>());
  type.add_parameter(
      number_parameter("theta", 10000.0, "> 1",
                       "the base of the rotation frequencies theta^(-2i / rotary_dim)"),
      field_access<&PositionEncodingConfig::rope, &RopeParams::theta>());
  type.add_parameter(integer_parameter("rotary_dim", 0, 0, "even, <= head_dim",
                                       "dimensions of each head that rotate; 0: the whole head"),
                     field_access<&PositionEncodingConfig::rope, &RopeParams::rotary_dim>());
  type.relative = true;
  type.rotates_queries_keys = true;
  type.figure = {"#f28e2b", "diamond", "9 3 2 3"};
  type.validate = validate_rope;
  type.make = [](const EncoderShape& shape,
                 const PositionEncodingWeights&) -> std::unique_ptr<PositionEncoding> {
    return std::make_unique<Rope>(shape);
  };
  // The rotary dimension that runs (0 resolved to the head), and the head it is part of.
  type.summarize = [](const EncoderShape& shape) -> SummaryFields {
    const RopeParams& rope = shape.position_encoding.rope;
    return {{"pairing", std::string(rope_pairing_name(rope.pairing))},
            {"theta", rope.theta},
            {"rotary_dim", shape.rotary_dim()},
            {"head_dim", shape.head_dim()}};
  };
  type.describe = [](const SummaryFields& fields) {
    return "pairing " + summary_number(summary_field(fields, "pairing")) + ", theta " +
           summary_number(summary_field(fields, "theta")) + ", rotary_dim " +
           summary_number(summary_field(fields, "rotary_dim")) + " of head_dim " +
           summary_number(summary_field(fields, "head_dim"));
  };
  return type;
}

}  // namespace tinyenc
