// AVX-512 version of short_attention.h's head products, lane for lane the scalar specification;
// compiled with -mavx512f, called only where the active ISA is avx512.
#include <immintrin.h>

#include "engine/ops/lanes_avx512.h"
#include "engine/ops/short_attention_impl.h"
#include "engine/pe/vec_avx512.h"

namespace tinyenc::avx512 {
namespace {

// The PE kernels' sixteen-float lanes, with masks and this file's register tiles.
struct Lanes : detail::VecAvx512 {
  using Mask = __mmask16;
  // 4 x 2 score sums and 4 x 4 context sums (64 values of a head) in 32 registers.
  static constexpr int kScoreRows = 4, kScoreVectors = 2;
  static constexpr int kContextRows = 4, kContextVectors = 4;
  static Mask first_lanes(int64_t n) { return avx512::first_lanes(n); }
  static Reg masked_load(const float* p, Mask m) { return _mm512_maskz_loadu_ps(m, p); }
  static void store_first(float* p, Reg v, int64_t n) { avx512::store_first(p, v, n); }
};

}  // namespace

void head_scores(const HeadScores& head, float* packed) {
  short_attention_impl::head_scores<Lanes>(head, packed);
}

void head_context(const HeadContext& head) { short_attention_impl::head_context<Lanes>(head); }

}  // namespace tinyenc::avx512
