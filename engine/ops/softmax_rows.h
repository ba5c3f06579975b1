// Softmax over each row of [rows, cols] scores, our own pass: no primitive to make per shape (a
// corpus meets many), and on AMD Zen 4 1.1x to 1.5x the rate of oneDNN 2.6's (attention_bench
// BM_Softmax, 16 to 512 keys).
//
// One row x[0..n): m = its largest value; e_j = exp(x_j - m) by exp.h, or 0 where x_j - m is
// below kExpLowest (a masked key's -10000 or -infinity gives exactly 0); s = the sum of the e_j
// in eight lanes (lane k adds e_j for j = k mod 8 in order, j below n rounded down to 8; the rest
// are added one by one from 0, then lanes 0 to 7 in order); p_j = e_j * (1 / s). A row with a NaN,
// or with every value -infinity, gives NaN.
//
// The scalar functions are the specification; the AVX2 and AVX-512 ones agree with them bit for
// bit. The AVX-512 one takes sixteen exponentials at a time (their sum still in the eight lanes):
// on AMD Zen 4, 12 heads' rows took 25 % less time than with the AVX2 one at 128 and 512 keys.
// Both keep a row's last partial group (of sixteen, of eight) in a register and store it once,
// with plain stores (store_first, lanes_avx2.h): stored masked, or built in memory from scalar
// stores and loaded back, it stalled the loads that followed. 12 heads' rows of 19 keys took
// 10.2-10.5 us in AVX-512 and 11.2-12.9 in AVX2, now 4.7-5.6 and 5.1-5.2; of 27 keys 21.7-22.2
// and 16.8-20.3 us, now 7.4-8.4 and 9.5-9.6 (attention_bench BM_Softmax, AMD Zen 4).
#pragma once

#include <cstdint>

namespace tinyenc {

// probabilities may be scores itself (in place). Rows are split among the OpenMP threads.
void softmax_rows(const float* scores, int64_t rows, int64_t cols, float* probabilities);

namespace scalar {
void softmax_row(const float* scores, int64_t cols, float* probabilities);  // may be in place
}  // namespace scalar

namespace avx2 {
void softmax_row(const float* scores, int64_t cols, float* probabilities);
}  // namespace avx2

namespace avx512 {
void softmax_row(const float* scores, int64_t cols, float* probabilities);
}  // namespace avx512

}  // namespace tinyenc
