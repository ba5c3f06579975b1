// AVX2 version of short_attention.h's head products, lane for lane the scalar specification;
// compiled with -mavx2 -mfma, called only where the CPU has AVX2.
#include <immintrin.h>

#include "engine/ops/lanes_avx2.h"
#include "engine/ops/short_attention_impl.h"
#include "engine/pe/vec_avx2.h"

namespace tinyenc::avx2 {
namespace {

// The PE kernels' eight-float lanes, with masks and this file's register tiles.
struct Lanes : detail::VecAvx2 {
  using Mask = __m256i;
  // 6 x 2 sums of each product, their two operands and a broadcast in 16 registers.
  static constexpr int kScoreRows = 6, kScoreVectors = 2;
  static constexpr int kContextRows = 6, kContextVectors = 2;
  static Mask first_lanes(int64_t n) { return avx2::first_lanes(n); }
  static Reg masked_load(const float* p, Mask m) { return _mm256_maskload_ps(p, m); }
  static void store_first(float* p, Reg v, int64_t n) { avx2::store_first(p, v, n); }
};

}  // namespace

void head_scores(const HeadScores& head, float* packed) {
  short_attention_impl::head_scores<Lanes>(head, packed);
}

void head_context(const HeadContext& head) { short_attention_impl::head_context<Lanes>(head); }

}  // namespace tinyenc::avx2
