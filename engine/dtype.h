// The data type the encoder's matmuls compute in, and what this CPU can run.
//
// f32 is the reference. bf16 stores weights as bfloat16 and multiplies bf16 x bf16 with f32
// accumulation; int8 stores weights as symmetric s8 with one scale per output channel and
// quantizes activations on the fly (dynamic quantization), accumulating in s32. LayerNorm,
// softmax, attention and the residual stream stay f32 in every dtype.
//
// Everything that differs between the dtypes sits in one table, dtype_traits() (as ggml's
// type_traits): the Linear weights' storage and conversions, the oneDNN primitive and data types
// of the matmul, and the CPU feature a dtype needs. WeightMatrix, Matmul, the model loader and
// `tinyenc convert` read it rather than switching on the dtype themselves.
#pragma once

#include <cstdint>
#include <oneapi/dnnl/dnnl.hpp>
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

// What a Linear's matmul does with its f32 activations (the rows of x) in a dtype.
enum class ActivationForm {
  kF32,       // takes them as they are
  kBF16,      // rounds them to bf16 on every call
  kU8PerRow,  // quantizes them on every call to u8, one scale and zero point per row
};

// One dtype's row of the table.
struct DtypeTraits {
  ComputeDtype dtype;
  std::string_view name;  // "f32", "bf16", "int8": --dtype, and __metadata__ tinyenc_dtype
  // How `tinyenc convert` stores Linear weights and embeddings: a safetensors dtype name.
  std::string_view file_dtype;

  // Storage of a weight matrix [out, in]: bytes per weight, whether each output channel has a
  // float scale (weight[o][i] = stored[o][i] * scale[o]), and the bytes each output channel
  // holds beside its weights once loaded (int8: its scale and the s32 sum of its row).
  int64_t weight_bytes;
  bool channel_scales;
  int64_t channel_bytes;
  // float32 [out, in] -> storage (and `scales` [out] when channel_scales), as `tinyenc convert`
  // stores it and as the engine computes with it; and storage -> float32, exact.
  void (*from_f32)(const float* weight, int64_t out, int64_t in, void* stored, float* scales);
  void (*to_f32)(const void* stored, const float* scales, int64_t out, int64_t in, float* weight);

  // The Linear's oneDNN primitive: data types of its weights, of its source (the activations,
  // converted as `activations` says) and of what it accumulates into its destination.
  dnnl::memory::data_type weight_type;
  dnnl::memory::data_type activation_type;
  dnnl::memory::data_type accumulator_type;
  ActivationForm activations;
  // The fixed rule (engine/ops/linear_choice.h measures instead where it can): a 1x1 convolution
  // (weights reordered once into its blocked layout) up to this many rows, a matmul beyond; the
  // matmul reads torch's [out, in] matrix in place, or packs it once.
  int64_t max_convolution_rows;
  bool matmul_weights_in_place;

  // The CPU: whether `features` run this dtype natively, and what it needs when they do not.
  bool (*runs_on)(const CpuFeatures& features);
  std::string_view needs;
};

// The table's row for `dtype`.
const DtypeTraits& dtype_traits(ComputeDtype dtype);

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
