#include "engine/ops/tile_product.h"

#include <cstring>
#include <stdexcept>

#include "engine/parallel_rows.h"

#if defined(__x86_64__)
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace tinyenc::ops::tiles {
namespace {

constexpr int64_t kTileRows = 16, kTileBytes = 64;

// Bytes of one value, and values per 4-byte group of a tile row of W.
int64_t element_bytes(ComputeDtype dtype) { return dtype == ComputeDtype::kInt8 ? 1 : 2; }
int64_t group(ComputeDtype dtype) { return 4 / element_bytes(dtype); }
// Values of `in` per step: one tile row of `a`.
int64_t step(ComputeDtype dtype) { return kTileBytes / element_bytes(dtype); }

#if defined(__x86_64__)
// Linux hands the tile state only to a process that asks for it (arch_prctl
// ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA); asked once.
bool tile_state_granted() {
  static const bool granted = [] {
    constexpr int kRequestPermission = 0x1023, kTileData = 18;
    return syscall(SYS_arch_prctl, kRequestPermission, kTileData) == 0;
  }();
  return granted;
}

// Palette 1 (Intel SDM, LDTILECFG): tiles 0-7 of 16 rows x 64 bytes.
struct alignas(64) TileConfig {
  uint8_t palette = 1;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t bytes_per_row[16] = {64, 64, 64, 64, 64, 64, 64, 64};
  uint8_t rows[16] = {16, 16, 16, 16, 16, 16, 16, 16};
};

// Output blocks [begin, end) of 32 columns. Tiles 0-3 accumulate (0: rows 0-15 x columns 0-15,
// 1: rows 0-15 x 16-31, 2: rows 16-31 x 0-15, 3: rows 16-31 x 16-31), 4-5 hold a's two row
// tiles, 6-7 W's two column tiles.
template <bool kBf16>
__attribute__((target("amx-tile,amx-int8,amx-bf16,sse"))) void blocks(const std::byte* a,
                                                                      int64_t rows, int64_t in,
                                                                      const std::byte* packed,
                                                                      int64_t out, std::byte* sums,
                                                                      int64_t begin, int64_t end) {
  constexpr int64_t kElement = kBf16 ? 2 : 1;
  const int64_t steps = in * kElement / kTileBytes;
  const int64_t a_stride = in * kElement, sums_stride = out * 4;
  const int64_t block_bytes = steps * 2 * kTileRows * kTileBytes;
  constexpr int64_t kAhead = 2;
  const TileConfig config;
  _tile_loadconfig(&config);
  alignas(64) int32_t tail[2 * kTileRows][kBlockColumns];
  // The next block's weights are fetched into L1 while this one is multiplied, spread evenly
  // over its steps: a tile load that waits on a cache miss stalls the tile products behind it.
  const int64_t row_blocks = (rows + 2 * kTileRows - 1) / (2 * kTileRows);
  const int64_t block_lines = block_bytes / 64;
  const int64_t lines_per_step = (block_lines + row_blocks * steps - 1) / (row_blocks * steps);
  for (int64_t block = begin; block < end; ++block) {
    const std::byte* w = packed + block * block_bytes;
    std::byte* column = sums + block * kBlockColumns * 4;
    const char* next = reinterpret_cast<const char*>(w + block_bytes);
    const char* const next_end = block + 1 < end ? next + block_bytes : next;
    const auto prefetch = [&] {
      for (int64_t l = 0; l < lines_per_step && next < next_end; ++l, next += 64) {
        _mm_prefetch(next, _MM_HINT_T0);
      }
    };
    for (int64_t r = 0; r < rows; r += 2 * kTileRows) {
      const std::byte* a0 = a + r * a_stride;
      const std::byte* a1 = a0 + kTileRows * a_stride;
      _tile_zero(0);
      _tile_zero(1);
      _tile_zero(2);
      _tile_zero(3);
      if (rows - r > kTileRows) {
        for (int64_t s = 0; s < steps; ++s) {
          const std::byte* ws = w + s * 2 * kTileRows * kTileBytes;
          prefetch();
          // a's rows of a later step, into L1: its tiles are otherwise loaded from L2 while the
          // products wait for them.
          if (s + kAhead < steps) {
            const char* ahead = reinterpret_cast<const char*>(a0 + (s + kAhead) * kTileBytes);
            for (int64_t i = 0; i < 2 * kTileRows; ++i)
              _mm_prefetch(ahead + i * a_stride, _MM_HINT_T0);
          }
          _tile_loadd(4, a0 + s * kTileBytes, a_stride);
          _tile_loadd(5, a1 + s * kTileBytes, a_stride);
          _tile_loadd(6, ws, kTileBytes);
          _tile_loadd(7, ws + kTileRows * kTileBytes, kTileBytes);
          if constexpr (kBf16) {
            _tile_dpbf16ps(0, 4, 6);
            _tile_dpbf16ps(1, 4, 7);
            _tile_dpbf16ps(2, 5, 6);
            _tile_dpbf16ps(3, 5, 7);
          } else {
            _tile_dpbusd(0, 4, 6);
            _tile_dpbusd(1, 4, 7);
            _tile_dpbusd(2, 5, 6);
            _tile_dpbusd(3, 5, 7);
          }
        }
      } else {  // at most 16 rows left: the top half of the block
        for (int64_t s = 0; s < steps; ++s) {
          const std::byte* ws = w + s * 2 * kTileRows * kTileBytes;
          prefetch();
          _tile_loadd(4, a0 + s * kTileBytes, a_stride);
          _tile_loadd(6, ws, kTileBytes);
          _tile_loadd(7, ws + kTileRows * kTileBytes, kTileBytes);
          if constexpr (kBf16) {
            _tile_dpbf16ps(0, 4, 6);
            _tile_dpbf16ps(1, 4, 7);
          } else {
            _tile_dpbusd(0, 4, 6);
            _tile_dpbusd(1, 4, 7);
          }
        }
      }
      std::byte* c = column + r * sums_stride;
      if (rows - r >= 2 * kTileRows) {
        _tile_stored(0, c, sums_stride);
        _tile_stored(1, c + kTileBytes, sums_stride);
        _tile_stored(2, c + kTileRows * sums_stride, sums_stride);
        _tile_stored(3, c + kTileRows * sums_stride + kTileBytes, sums_stride);
        continue;
      }
      // The last, partial block: through a buffer of our own, its rows copied out.
      _tile_stored(0, &tail[0][0], kBlockColumns * 4);
      _tile_stored(1, &tail[0][kTileRows], kBlockColumns * 4);
      _tile_stored(2, &tail[kTileRows][0], kBlockColumns * 4);
      _tile_stored(3, &tail[kTileRows][kTileRows], kBlockColumns * 4);
      for (int64_t i = 0; i < rows - r; ++i) {
        std::memcpy(c + i * sums_stride, tail[i], kBlockColumns * 4);
      }
    }
  }
  _tile_release();
}
#endif

}  // namespace

bool available(ComputeDtype dtype) {
#if defined(__x86_64__)
  const CpuFeatures features = cpu_features();
  const bool has = dtype == ComputeDtype::kInt8   ? features.amx_int8
                   : dtype == ComputeDtype::kBF16 ? features.amx_bf16
                                                  : false;
  return has && tile_state_granted();
#else
  (void)dtype;
  return false;
#endif
}

bool fits(ComputeDtype dtype, int64_t in, int64_t out) {
  if (dtype != ComputeDtype::kInt8 && dtype != ComputeDtype::kBF16) return false;
  return in > 0 && out > 0 && in % step(dtype) == 0 && out % kBlockColumns == 0;
}

std::vector<std::byte> pack(ComputeDtype dtype, const void* weights, int64_t out, int64_t in) {
  if (!fits(dtype, in, out)) throw std::logic_error("tiles::pack: shape does not fit the kernel");
  const int64_t bytes = element_bytes(dtype), g = group(dtype), steps = in / step(dtype);
  const auto* w = static_cast<const std::byte*>(weights);
  std::vector<std::byte> packed(static_cast<size_t>(out * in * bytes));
  std::byte* to = packed.data();
  // Block, step, tile (16 outputs), tile row (g inputs of each output), output, input in group.
  for (int64_t block = 0; block < out / kBlockColumns; ++block) {
    for (int64_t s = 0; s < steps; ++s) {
      for (int64_t tile = 0; tile < 2; ++tile) {
        for (int64_t row = 0; row < kTileRows; ++row) {
          for (int64_t n = 0; n < 16; ++n) {
            const int64_t o = block * kBlockColumns + tile * 16 + n;
            const int64_t i = s * step(dtype) + row * g;
            std::memcpy(to, w + (o * in + i) * bytes, static_cast<size_t>(g * bytes));
            to += g * bytes;
          }
        }
      }
    }
  }
  return packed;
}

void product(ComputeDtype dtype, const void* a, int64_t rows, int64_t in, const std::byte* packed,
             int64_t out, void* sums) {
#if defined(__x86_64__)
  if (!available(dtype) || !fits(dtype, in, out)) {
    throw std::logic_error("tiles::product: not available for this dtype or shape");
  }
  const auto* from = static_cast<const std::byte*>(a);
  auto* to = static_cast<std::byte*>(sums);
  // Threads share the output's column blocks; each block is computed by one thread alone.
  parallel_rows(out / kBlockColumns, rows * in * out, int64_t{1} << 20,
                [&](int64_t begin, int64_t end) {
                  if (dtype == ComputeDtype::kBF16) {
                    blocks<true>(from, rows, in, packed, out, to, begin, end);
                  } else {
                    blocks<false>(from, rows, in, packed, out, to, begin, end);
                  }
                });
#else
  (void)dtype, (void)a, (void)rows, (void)in, (void)packed, (void)out, (void)sums;
  throw std::logic_error("tiles::product: no tiles on this architecture");
#endif
}

}  // namespace tinyenc::ops::tiles
