// y[rows, out] = epilogue(x[rows, in] W^T + b) (+ residual[rows, out]): torch.nn.Linear with the
// activation and the residual add. x, y, b and the residual are f32 in every dtype; the weights
// are in theirs (WeightMatrix):
//   f32:  f32 x f32, activation and residual fused into the primitive as oneDNN post-ops.
//   bf16: x rounded to bf16 into a scratch buffer, bf16 x bf16 with f32 accumulation; post-ops
//         as f32.
//   int8: dynamic quantization (as PyTorch's quantize_dynamic, but per token): each row of x
//         quantized per call to u8 with its own scale and zero point, s8 weights per output
//         channel, s32 sums from oneDNN; then here y = scale_x[r] * scale_w[o] * (S - zero_point
//         * sum_i w_s8[o][i]) + b[o], oneDNN's activation over y, and the residual add. One scale
//         per row: a token with outlying activations (a checkpoint's [CLS] or </s> often has a
//         few channels 50x the rest) coarsens only its own row. oneDNN 2.6 has no kernel for a
//         per-row scale as a post-op (a {rows, 1} binary post-op runs its reference loop), so
//         the dequantization is a pass of ours: 0-6 % slower than one scale per call fused as
//         post-ops, on mini and base at 8 to 128 rows (bench --dtype int8, one thread, VNNI).
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/buffer.h"
#include "engine/dtype.h"
#include "engine/ops/bound_primitive.h"
#include "engine/ops/linear_choice.h"
#include "engine/ops/quantize.h"
#include "engine/ops/runtime.h"
#include "engine/ops/to_bf16.h"
#include "engine/ops/weight_matrix.h"

namespace tinyenc {

enum class Epilogue { kNone, kGeluErf, kGeluTanh, kRelu, kTanh };

namespace ops {

class Matmul {
 public:
  explicit Matmul(Runtime& runtime);

  // bias [out] may be null; residual, when given, is [rows, out] and may alias neither x nor y.
  void operator()(const float* x, int64_t rows, WeightMatrix& weights, const float* bias, float* y,
                  Epilogue epilogue = Epilogue::kNone, const float* residual = nullptr);

  // oneDNN's name for the implementation of the primitive the last call ran ("gemm:jit",
  // "jit_uni_int8_1x1:avx2", "brg:avx512_core_amx_int8"...); empty before the first call.
  const std::string& implementation() const { return *implementation_; }

 private:
  struct Key {
    const WeightMatrix* weights;
    ComputeDtype dtype;
    const float* bias;
    int64_t rows;
    Epilogue epilogue;
    bool residual;
    int threads;
    auto operator<=>(const Key&) const = default;
  };
  struct ActivationKey {
    int64_t count;
    Epilogue epilogue;
    int threads;
    auto operator<=>(const ActivationKey&) const = default;
  };
  // A primitive with what one call needs besides it, allocated once per key; or the weights in
  // the tile product's order, when that computes the key.
  struct Plan {
    BoundPrimitive primitive;
    const std::byte* tiles = nullptr;
    std::string implementation;
  };
  Plan plan(const Key& key, WeightMatrix& weights);
  // A 1x1 convolution, a matmul or the tiles for this key (engine/ops/linear_choice.h).
  LinearPrimitive preferred_primitive(const Key& key, const WeightMatrix& weights);
  // Whether the tile product can compute this key: AMX for its dtype, a shape that fits, and
  // (bf16) an epilogue of those applied after it, row by row (finish_rows in matmul.cc).
  static bool tiles_apply(const Key& key, const WeightMatrix& weights);
  // int8, per row. Some rows are quantized twice, the second time what the first left (x ~= s
  // (q - z) + s' (q' - z')), both quantizations rows of the one matmul: every row of an input of
  // at most kTwoPassRows rows (1 to 3 tokens), and elsewhere a row with values far out of its
  // bulk (outlying() in matmul.cc). Such a row's activations then carry about twice int8's bits.
  // On the base preset, pooled cosine to f32 of 1-token inputs went from 0.9987-0.9988 to
  // 0.9993-0.9994, the weights-only figure; all-mpnet-base-v2's ranking (Spearman against
  // f32) on AVX2's 127 levels from 0.989 to 0.996. It costs the second rows' dot products: 1.0x
  // to 1.35x the one-pass time from 1 to 3 rows on base, 1.2x to 1.8x on mini (bench --dtype int8
  // --seq 1,2,3, one thread, AVX-512 VNNI), and nothing where no row is outlying.
  static constexpr int64_t kTwoPassRows = 3;
  void rowwise_int8(const float* x, int64_t rows, WeightMatrix& weights, const float* bias,
                    float* y, Epilogue epilogue, const float* residual);
  std::vector<ActivationQuantization> row_quantizations_;  // rows, then the second ones
  std::vector<int64_t> twice_;                             // the rows quantized twice
  std::vector<int64_t> second_of_;  // per row: k for its second quantization at rows + k, or -1
  // source_, with room for `rows` + kSlackRows rows of `in` elements of `element_size` bytes.
  // oneDNN's AMX kernels and our tile product load whole tiles of 16 rows; the slack keeps a
  // kernel that loads a partial block's tile in full inside memory of ours.
  static constexpr int64_t kSlackRows = 16;
  void* activation_buffer(int64_t rows, int64_t in, size_t element_size);

  Runtime* runtime_;
  int32_t activation_levels_;  // int8: u8 activations take [0, activation_levels_]
  PrimitiveCache<Key, Plan> plans_;
  AlignedBuffer source_;      // bf16 or u8 activations [rows, in], shared by every plan
  AlignedBuffer remainders_;  // int8: what a row's first quantization left [in]
  AlignedBuffer sums_;        // int8: s32 sums [rows + rows quantized twice, out]
  PrimitiveCache<ActivationKey> activations_;
  ToBf16 to_bf16_;  // bf16: x to bf16
  static const std::string kNoImplementation;
  const std::string* implementation_ = &kNoImplementation;
};

}  // namespace ops
}  // namespace tinyenc
