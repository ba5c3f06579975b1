// none: no position information at all, the order-blind baseline (the seed's figure 1).
#include <algorithm>

#include "engine/pe/registry.h"

namespace tinyenc {

PositionEncodingType no_position_encoding() {
  PositionEncodingType type;
  type.name = "none";
  type.summary = "no position information: the encoder is order-blind";
  type.fixed_table = true;
  // Grey on purpose: the baseline that sees no order at all.
  type.figure = {"#9e9e9e", "circle", ""};
  type.validate = [](const EncoderShape&, const FieldNames&) {};
  type.make = [](const EncoderShape&,
                 const PositionEncodingWeights&) -> std::unique_ptr<PositionEncoding> {
    return std::make_unique<PositionEncoding>();
  };
  type.table = [](const EncoderShape& shape, int64_t, int64_t positions, float* out) {
    std::fill(out, out + positions * shape.d_model, 0.0f);
  };
  return type;
}

}  // namespace tinyenc
