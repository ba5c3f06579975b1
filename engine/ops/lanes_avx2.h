// Lane helpers of the AVX2 row kernels (ops/*_avx2.cc, and the AVX-512 ones' halves), for
// translation units compiled with -mavx2 or more. They have internal linkage: each translation
// unit keeps its own copy, compiled with its own flags, so that an AVX-512 unit's copy (where GCC
// may pick AVX-512 encodings) can never stand in for an AVX2 unit's.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace tinyenc::avx2 {
namespace {

// Lane k set when k < n (0 <= n <= 8): a tail's mask.
inline __m256i first_lanes(int64_t n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// Lanes 0 to n - 1 of v (0 <= n <= 8) added one by one, in order, from 0.
inline float sum_in_order(__m256 v, int64_t n) {
  float sum = 0.0f;
  __m128 four = _mm256_castps256_ps128(v);
  for (int64_t k = 0; k < n; ++k) {
    if (k == 4) four = _mm256_extractf128_ps(v, 1);
    sum += _mm_cvtss_f32(four);
    four = _mm_permute_ps(four, _MM_SHUFFLE(0, 3, 2, 1));
  }
  return sum;
}

// Lanes 0 to n - 1 of v (n <= 8; none for n <= 0), 32 bits each, stored with plain stores of 8, 4,
// 2 and 1 lanes, not a masked one: an AVX2 masked store is microcoded on AMD Zen, and on Zen 4 a
// load of what a masked store wrote waits for that store to leave the core (the AVX-512 softmax
// over rows of 19 keys ran 2.1x as fast without its masked tail store, attention_bench
// BM_Softmax).
inline void store_first(void* out, __m256i v, int64_t n) {
  auto* bytes = static_cast<char*>(out);
  if (n == 8) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(bytes), v);
    return;
  }
  __m128i four = _mm256_castsi256_si128(v);
  if (n >= 4) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(bytes), four);
    four = _mm256_extracti128_si256(v, 1);
    bytes += 16;
    n -= 4;
  }
  if (n >= 2) {
    _mm_storeu_si64(bytes, four);
    four = _mm_unpackhi_epi64(four, four);
    bytes += 8;
    n -= 2;
  }
  if (n == 1) _mm_storeu_si32(bytes, four);
}

inline void store_first(float* out, __m256 v, int64_t n) {
  store_first(static_cast<void*>(out), _mm256_castps_si256(v), n);
}

}  // namespace
}  // namespace tinyenc::avx2
