// none: no position information at all, the order-blind baseline (the seed's figure 1).
#include "engine/pe/registry.h"

namespace tinyenc {

const PositionEncodingType& no_position_encoding() {
  static const PositionEncodingType type{
      PositionEncodingKind::kNone, "none", [](const EncoderConfig&, const FieldNames&) {},
      [](const EncoderConfig&, const EncoderWeights&) -> std::unique_ptr<PositionEncoding> {
        return std::make_unique<PositionEncoding>();
      }};
  return type;
}

}  // namespace tinyenc
