// Which kernel computes a Linear layer's product on this machine: oneDNN's 1x1 convolution or
// matmul, or, on AMX in int8 and bf16, tinyenc's own tile product (engine/ops/tile_product.h).
// None wins everywhere. f32 on base's shapes, one thread: on AMD Zen 4
// (avx512_core) the convolution ran 2.3x faster at 8 rows and 8 % faster at 128; on Intel
// Sapphire Rapids the matmul was 16 % faster at 128 rows; on AVX2 machines the convolution led
// up to about 256 rows. So by default (TINYENC_LINEAR=measure) each shape is timed once, every
// way this CPU has, and the fastest kept.
//
// The two round differently (their sums run in different orders), and `run --shard` promises
// that shards run in separate processes concatenate into the unsharded run byte for byte: every
// process on a machine must make the same choice. A measured choice is therefore recorded in a
// book the machine's processes share (engine/io/record_book.h, installed by the library; see
// docs/dtypes.md) and read back, never re-timed; a process with no book, or whose book cannot be
// written, follows the fixed rule instead (dtype_traits().max_convolution_rows), as do
// TINYENC_LINEAR=rule runs (the rule names only oneDNN's primitives). TINYENC_LINEAR=convolution,
// matmul or tiles forces one (the convolution where oneDNN has an acceptable one for the shape,
// the tiles where the CPU, dtype and shape allow them), for A/B measurements.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "engine/dtype.h"

namespace tinyenc::ops {

enum class LinearPrimitive { kConvolution, kMatmul, kTiles };
std::string_view linear_primitive_name(LinearPrimitive primitive);
std::optional<LinearPrimitive> parse_linear_primitive(std::string_view name);

enum class LinearChoiceMode { kMeasure, kRule, kConvolution, kMatmul, kTiles };
std::optional<LinearChoiceMode> parse_linear_choice_mode(std::string_view name);
// TINYENC_LINEAR, read once; measure when unset. An unknown value is an error
// ("TINYENC_LINEAR: expected measure, rule, convolution, matmul or tiles, got 'x'").
LinearChoiceMode linear_choice_mode();

// A shape is measured at its row count rounded up to a power of two, at most kMaxMeasuredRows:
// the choice for 65 to 128 rows is the one measured at 128.
constexpr int64_t kMaxMeasuredRows = 1024;
int64_t measured_rows(int64_t rows);

// What a shape's choice is recorded under: the dtype, in, out, measured rows, threads, oneDNN's
// version and effective ISA (ONEDNN_MAX_CPU_ISA changes the kernels, so the choice), and
// `trial`: what else the trial depends on (whether the tiles took part, the epilogue timed with
// them), or empty.
std::string linear_choice_key(ComputeDtype dtype, int64_t in, int64_t out, int64_t rows,
                              int threads, const std::string& trial = "");

// Keeps choices between processes: the value recorded under `key`, else measure()'s, recorded;
// nullopt when it cannot keep one. Set once per process, before the first forward pass, by the
// library (models/linear_choice_book.cc); none by default.
using LinearChoiceBook = std::function<std::optional<std::string>(
    const std::string& key, const std::function<std::string()>& measure)>;
void set_linear_choice_book(LinearChoiceBook book);

// The book's choice for `key` (measure() when it has none); nullopt without a book, when the
// book cannot keep it, or when it holds something else than a primitive's name.
std::optional<LinearPrimitive> recorded_linear_choice(
    const std::string& key, const std::function<LinearPrimitive()>& measure);

}  // namespace tinyenc::ops
