// sinusoidal (Vaswani et al. 2017): fixed sin/cos rows added to the token embeddings.
#include <string>

#include "engine/pe/registry.h"
#include "engine/pe/sinusoidal.h"

namespace tinyenc {
namespace {

class Sinusoidal : public PositionEncoding {
 public:
  explicit Sinusoidal(const EncoderConfig& config)
      : table_(config.d_model, config.position_encoding.sinusoidal) {}

  void prepare(int64_t seq, int64_t position_offset) override {
    rows_ = table_.rows(seq + position_offset);
  }
  PositionTable embedding_rows() const override { return {rows_, table_.positions()}; }

 private:
  SinusoidalTable table_;
  const float* rows_ = nullptr;
};

void validate_sinusoidal(const EncoderConfig& config, const FieldNames& names) {
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

const PositionEncodingType& sinusoidal_position_encoding() {
  static const PositionEncodingType type{
      PositionEncodingKind::kSinusoidal, "sinusoidal", validate_sinusoidal,
      [](const EncoderConfig& config, const EncoderWeights&) -> std::unique_ptr<PositionEncoding> {
        return std::make_unique<Sinusoidal>(config);
      }};
  return type;
}

}  // namespace tinyenc
