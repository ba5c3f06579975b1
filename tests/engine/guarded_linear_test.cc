// Every Linear shape the presets and the shipped heads use, in every compute dtype this CPU has,
// at every row count from 1 to 50 and around the powers of two, with the input, the residual and
// the output each ending where an inaccessible page begins: a kernel that reads or writes one
// element past a buffer it was handed dies here of SIGSEGV instead of corrupting the heap. (oneDNN
// 2.6's AMX int8 1x1 convolution did, at 27, 33, 36, 39, 42, 45 and 48 rows.) Each result is also
// checked against double precision within its dtype's bound (linear_reference.h), and no
// reference implementation may have run.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/dtype.h"
#include "engine/layers/linear.h"
#include "engine/ops/implementation.h"
#include "engine/random_encoder.h"
#include "tests/engine/linear_reference.h"

namespace tinyenc {
namespace {

// `count` floats whose last one is followed by a PROT_NONE page.
class GuardedFloats {
 public:
  explicit GuardedFloats(int64_t count) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t bytes = static_cast<size_t>(count) * sizeof(float);
    length_ = (bytes + page - 1) / page * page + page;
    base_ = mmap(nullptr, length_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base_ == MAP_FAILED) throw std::runtime_error("mmap failed");
    char* guard = static_cast<char*>(base_) + length_ - page;
    if (mprotect(guard, page, PROT_NONE) != 0) throw std::runtime_error("mprotect failed");
    data_ = reinterpret_cast<float*>(guard - bytes);
  }
  GuardedFloats(const GuardedFloats&) = delete;
  GuardedFloats& operator=(const GuardedFloats&) = delete;
  ~GuardedFloats() { munmap(base_, length_); }
  float* data() { return data_; }

 private:
  void* base_ = nullptr;
  size_t length_ = 0;
  float* data_ = nullptr;
};

using testing::normal_values;

struct Shape {
  int64_t in, out;
  Epilogue epilogue;
  bool residual;
};

// Each preset's QKV, attention output (+ residual), FFN in (GELU) and FFN out (+ residual), its
// pooler (tanh) and classifiers of odd widths (the shipped order-* models' 64 -> 42 among them).
std::vector<Shape> preset_shapes(const EncoderConfig& c) {
  const int64_t d = c.d_model, ffn = c.ffn_dim;
  return {{d, 3 * d, Epilogue::kNone, false},  {d, d, Epilogue::kNone, true},
          {d, ffn, Epilogue::kGeluErf, false}, {ffn, d, Epilogue::kNone, true},
          {d, d, Epilogue::kTanh, false},      {d, 42, Epilogue::kNone, false},
          {d, 3, Epilogue::kNone, false}};
}

std::vector<int64_t> row_counts(int64_t d_model) {
#ifdef TINYENC_GUARD_FEWER_ROWS
  // The sanitizer build, where each row count costs several times more: the widths oneDNN's
  // kernels are known to treat apart, and their neighbours.
  (void)d_model;
  return {1, 2, 3, 15, 16, 17, 26, 27, 33, 36, 39, 42, 45, 48, 49, 64, 129};
#endif
  std::vector<int64_t> rows;
  for (int64_t r = 1; r <= 50; ++r) rows.push_back(r);
  for (int64_t r : {63, 64, 65, 96, 127, 128, 129}) rows.push_back(r);
  // 256 rows is where f32 moves from the convolution to the matmul; base's checks there cost
  // more than they add.
  if (d_model <= 256) rows.insert(rows.end(), {255, 256, 257});
  return rows;
}

void run_shapes(ComputeDtype dtype, const std::vector<Shape>& shapes, int64_t d_model) {
  const std::vector<int64_t> rows = row_counts(d_model);
  const int64_t most = rows.back();
  for (const Shape& s : shapes) {
    const std::vector<float> w = normal_values(s.out * s.in, 1.0f / std::sqrt(float(s.in)), 1);
    const std::vector<float> bias = normal_values(s.out, 0.1f, 2);
    const std::vector<float> x_values = normal_values(most * s.in, 1.0f, 3);
    const testing::LinearReference reference(x_values.data(), w.data(), bias.data(), most, s.in,
                                             s.out);
    GuardedFloats x(most * s.in);
    Runtime runtime;
    Linear linear(runtime, LinearSource::of_f32(w.data(), s.out, s.in), bias.data(), dtype);
    for (int64_t r : rows) {
      // The first r rows of x, moved so that they too end at the guard page.
      float* input = x.data() + (most - r) * s.in;
      std::memcpy(input, x_values.data(), static_cast<size_t>(r * s.in) * sizeof(float));
      GuardedFloats y(r * s.out), residual(r * s.out);
      const std::vector<float> residual_values = normal_values(r * s.out, 1.0f, 4);
      std::memcpy(residual.data(), residual_values.data(), residual_values.size() * sizeof(float));
      const float* add = s.residual ? residual.data() : nullptr;
      linear(input, r, y.data(), s.epilogue, add);
      ASSERT_EQ(reference.mismatch(dtype, r, s.epilogue, add, y.data()), "")
          << "implementation " << linear.implementation();
      ASSERT_TRUE(ops::acceptable_implementation(linear.implementation()))
          << compute_dtype_name(dtype) << " " << s.in << " -> " << s.out << " on " << r
          << " rows ran " << linear.implementation();
    }
  }
}

struct Case {
  std::string preset;
  ComputeDtype dtype;
};

class GuardedLinear : public ::testing::TestWithParam<Case> {};

TEST_P(GuardedLinear, StaysInsideItsBuffers) {
  const Case& c = GetParam();
  if (const std::string reason = dtype_unsupported_reason(c.dtype); !reason.empty()) {
    GTEST_SKIP() << reason;
  }
  const EncoderConfig config = *preset_config(c.preset);
  std::vector<Shape> shapes = preset_shapes(config);
  if (c.preset == "tiny") shapes.push_back({64, 42, Epilogue::kNone, false});  // order-* heads
  run_shapes(c.dtype, shapes, config.d_model);
}

std::vector<Case> cases() {
  std::vector<Case> all;
  for (const char* preset : {"tiny", "mini", "small", "base"}) {
    for (ComputeDtype dtype : {ComputeDtype::kF32, ComputeDtype::kBF16, ComputeDtype::kInt8}) {
      all.push_back({preset, dtype});
    }
  }
  return all;
}

INSTANTIATE_TEST_SUITE_P(Presets, GuardedLinear, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return info.param.preset + "_" +
                                  std::string(compute_dtype_name(info.param.dtype));
                         });

}  // namespace
}  // namespace tinyenc
