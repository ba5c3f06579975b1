// The data type the encoder's matmuls compute in, and what this CPU can run.
//
// f32 is the reference. bf16 stores weights as bfloat16 and multiplies bf16 x bf16 with f32
// accumulation; int8 stores weights as symmetric s8 with one scale per output channel and
// quantizes activations on the fly (dynamic quantization), accumulating in s32. LayerNorm,
// softmax, attention and the residual stream stay f32 in every dtype.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tinyenc {

enum class ComputeDtype { kF32, kBF16, kInt8 };

std::string_view compute_dtype_name(ComputeDtype dtype);  // "f32", "bf16", "int8"

// Parses "f32", "bf16" or "int8"; nullopt for anything else ("auto" is the caller's).
std::optional<ComputeDtype> parse_compute_dtype(std::string_view name);

// The CPU features that decide which dtypes run natively, as oneDNN sees them: a feature
// ONEDNN_MAX_CPU_ISA caps away counts as absent.
struct CpuFeatures {
  bool avx2 = false;
  bool avx512f = false;      // oneDNN's avx512_core (F, BW, VL, DQ)
  bool avx512_bf16 = false;  // native bf16 dot products
  bool avx512_vnni = false;  // int8 dot products (VNNI), AVX-512
  bool avx_vnni = false;     // int8 dot products (VNNI), AVX2 encoding
  bool amx_bf16 = false;
  bool amx_int8 = false;
};
CpuFeatures cpu_features();

// "avx2 avx512f avx512_bf16 ..." for the features present; "none" when none is.
std::string cpu_feature_list(const CpuFeatures& features);

// Empty when this CPU runs `dtype` natively; otherwise one sentence naming the missing feature,
// e.g. "bf16 needs AVX-512 (oneDNN's avx512_core); this CPU has avx2". Never an emulation.
std::string dtype_unsupported_reason(ComputeDtype dtype);

// The fastest dtype that meets tinyenc's accuracy gates on this CPU (the `auto` choice), and
// one line saying why.
struct AutoComputeDtype {
  ComputeDtype dtype;
  std::string reason;
};
AutoComputeDtype auto_compute_dtype();

}  // namespace tinyenc
