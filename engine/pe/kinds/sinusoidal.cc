// sinusoidal (Vaswani et al. 2017): fixed sin/cos rows added to the token embeddings.
#include <string>

#include "engine/pe/registry.h"
#include "engine/pe/sinusoidal.h"

namespace tinyenc {
namespace {

class Sinusoidal : public PositionEncoding {
 public:
  explicit Sinusoidal(const EncoderShape& config)
      : table_(config.d_model, config.position_encoding.sinusoidal) {}

  void prepare(int64_t seq, int64_t position_offset) override {
    rows_ = table_.rows(seq + position_offset);
  }
  PositionTable embedding_rows() const override { return {rows_, table_.positions()}; }

 private:
  SinusoidalTable table_;
  const float* rows_ = nullptr;
};

void validate_sinusoidal(const EncoderShape& config, const FieldNames& names) {
  if (!(config.position_encoding.sinusoidal.base > 1.0)) {
    throw InvalidField(names.parameter("base"), "must be > 1");
  }
  if (config.heads > 0 && config.d_model % 2 != 0) {
    throw InvalidField(std::string(names.d_model),
                       std::to_string(config.d_model) +
                           " is odd, but the sinusoidal table pairs sin and cos dimensions");
  }
}

}  // namespace

PositionEncodingType sinusoidal_position_encoding() {
  PositionEncodingType type;
  type.name = "sinusoidal";
  type.summary = "fixed sin/cos rows added to the token embeddings (Vaswani et al. 2017)";
  type.add_parameter(
      choice_parameter("layout", {"interleaved", "concat"},
                       "which dimensions share a frequency: interleaved (2i sin, "
                       "2i + 1 cos) or concat (first half sin, second half cos)"),
      field_access<&PositionEncodingConfig::sinusoidal, &SinusoidalParams::layout>());
  type.add_parameter(number_parameter("base", 10000.0, "> 1", "w_i = base^(-2i / d_model)"),
                     field_access<&PositionEncodingConfig::sinusoidal, &SinusoidalParams::base>());
  type.add_parameter(flag_parameter("scale_embeddings", false,
                                    "multiply the token embeddings by sqrt(d_model) first"),
                     field_access<&PositionEncodingConfig::scale_embeddings>());
  type.adds_to_embeddings = true;
  type.fixed_table = true;
  type.figure = {"#b07aa1", "square", "7 3"};
  type.validate = validate_sinusoidal;
  type.make = [](const EncoderShape& shape,
                 const PositionEncodingWeights&) -> std::unique_ptr<PositionEncoding> {
    return std::make_unique<Sinusoidal>(shape);
  };
  // scale_embeddings is shown for every kind by `tinyenc info` itself.
  type.describe = [](const SummaryFields& fields) {
    return "layout " + summary_number(summary_field(fields, "layout")) + ", base " +
           summary_number(summary_field(fields, "base"));
  };
  type.table = [](const EncoderShape& shape, int64_t first_position, int64_t positions,
                  float* out) {
    sinusoidal_rows(shape.position_encoding.sinusoidal, shape.d_model, first_position, positions,
                    out);
  };
  return type;
}

}  // namespace tinyenc
