// A Linear's product on AMX tiles, our own: sums[rows, out] = a[rows, in] W^T with u8 x s8 -> s32
// (int8) or bf16 x bf16 -> f32 (bf16), W packed once into the order the tiles read it. oneDNN
// 2.6's AMX kernels run base's Linear layers at 128 rows at 16-21 % of the tiles' rate
// (ceiling_bench: BM_Linear against BM_AmxPeak); this one runs the plain 2 x 2 block of tile
// products over weights read in sequence, and the Linear choice (linear_choice.h) times it
// against oneDNN's primitives for each shape and keeps the fastest.
//
// Each thread takes a share of the output's blocks of 32 columns; for every 32 rows it keeps four
// accumulator tiles (2 x 16 rows, 2 x 16 columns), and for every step along `in` (64 int8 or 32
// bf16 values) loads two 16-row tiles of `a` in place and two tiles of W. Rows past `rows` in
// the last block are computed from whatever `a` holds there and not stored: `a` must have
// kSlackRows readable rows after its last.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/dtype.h"

namespace tinyenc::ops::tiles {

constexpr int64_t kSlackRows = 16;
constexpr int64_t kBlockColumns = 32;

// Whether this process runs tile products in `dtype` (int8 or bf16): the CPU has AMX for it,
// oneDNN may use AMX (ONEDNN_MAX_CPU_ISA caps both alike), and Linux granted the tile state.
bool available(ComputeDtype dtype);

// Whether a [out, in] matrix fits the kernel: in a multiple of one step (64 int8 or 32 bf16
// values), out a multiple of kBlockColumns.
bool fits(ComputeDtype dtype, int64_t in, int64_t out);

// W [out, in] (s8, or bf16 bits) in the tiles' order: per block of 32 outputs, per step along
// `in`, two 1 KB tiles of 16 rows, each row 16 outputs x 4 s8 (or 2 bf16) consecutive inputs.
std::vector<std::byte> pack(ComputeDtype dtype, const void* weights, int64_t out, int64_t in);

// sums[rows, out] (int32 for int8, float for bf16) = a[rows, in] (u8 or bf16 bits) W^T, W as
// pack() left it. Requires available(dtype) and fits(dtype, in, out).
void product(ComputeDtype dtype, const void* a, int64_t rows, int64_t in, const std::byte* packed,
             int64_t out, void* sums);

}  // namespace tinyenc::ops::tiles
