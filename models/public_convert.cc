// <tinyenc/convert.h> on models/convert_model.h.
#include <tinyenc/convert.h>

#include <optional>

#include "engine/dtype.h"
#include "models/convert_model.h"
#include "models/public_model_impl.h"

namespace tinyenc {

ConvertResult convert(const std::string& input_folder, const std::string& output_folder,
                      const std::string& dtype) {
  return guarded([&] {
    const std::optional<ComputeDtype> parsed = parse_compute_dtype(dtype);
    if (!parsed || *parsed == ComputeDtype::kF32) {
      throw bad_input("dtype '" + dtype + "': expected int8 or bf16");
    }
    ConversionSummary summary = convert_model(input_folder, output_folder, *parsed);
    return ConvertResult{summary.converted_tensors, summary.input_bytes, summary.output_bytes,
                         std::move(summary.not_copied)};
  });
}

}  // namespace tinyenc
