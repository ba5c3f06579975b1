// The engine's operations on oneDNN primitives: each is one mathematical operation with no
// knowledge of models. Primitives are described once per shape and cached (oneDNN's "describe
// once, execute many times"); only memory handles are bound per call.
#pragma once

#include <array>
#include <cstdint>
#include <list>
#include <map>
#include <oneapi/dnnl/dnnl.hpp>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tinyenc {

// The oneDNN CPU engine and an in-order stream; one per Encoder.
struct Runtime {
  Runtime();
  dnnl::engine engine;
  dnnl::stream stream;
};

enum class Epilogue { kNone, kGeluErf, kGeluTanh, kRelu, kTanh };

// A primitive with its argument memory objects created once; a call only rebinds the data
// handles, so executing allocates nothing.
class BoundPrimitive {
 public:
  BoundPrimitive() = default;
  BoundPrimitive(dnnl::primitive primitive, std::unordered_map<int, dnnl::memory> args)
      : primitive_(std::move(primitive)), args_(std::move(args)) {}

  // Points argument `arg` at `data` (operands only read are passed as const).
  BoundPrimitive& bind(int arg, const void* data) {
    args_.at(arg).set_data_handle(const_cast<void*>(data));
    return *this;
  }
  void execute(dnnl::stream& stream) {
    primitive_.execute(stream, args_);
    stream.wait();
  }

 private:
  dnnl::primitive primitive_;
  std::unordered_map<int, dnnl::memory> args_;
};

// y[rows, out] = epilogue(x[rows, in] W^T + b) (+ residual[rows, out]).
// W is [out, in] as in torch.nn.Linear. The primitive is chosen per row count (see ops.cc);
// where it wants the weights in its own layout they are reordered once and kept.
class Linear {
 public:
  Linear(Runtime& runtime, const float* weight, const float* bias, int64_t out_features,
         int64_t in_features);

  void operator()(const float* x, int64_t rows, float* y, Epilogue epilogue = Epilogue::kNone,
                  const float* residual = nullptr);

  int64_t out_features() const { return out_; }
  int64_t in_features() const { return in_; }

 private:
  const dnnl::memory& packed_weights(const dnnl::memory::desc& desc);
  BoundPrimitive plan(int64_t rows, Epilogue epilogue, bool residual);

  Runtime* runtime_;
  const float* weight_;
  const float* bias_;
  int64_t out_;
  int64_t in_;
  std::map<std::tuple<int64_t, Epilogue, bool, int>, BoundPrimitive> plans_;
  std::list<std::pair<dnnl::memory::desc, dnnl::memory>> packed_;  // list: stable addresses
};

// A strided 4-D view [batch, heads, rows, cols] of float memory.
struct View4 {
  const float* data = nullptr;
  int64_t dims[4] = {0, 0, 0, 0};
  int64_t strides[4] = {0, 0, 0, 0};
};

// Scaled dot-product attention pieces as batched matmuls over strided views, so heads are
// addressed in place inside a fused QKV buffer instead of being copied out.
class AttentionCore {
 public:
  explicit AttentionCore(Runtime& runtime) : runtime_(&runtime) {}

  // scores[B, H, Tq, Tk] = scale * q k^T (+ bias). The additive bias is dense with dims
  // bias_dims, each equal to the scores' or 1 (broadcast): [B, 1, 1, Tk] is a key padding mask,
  // [1, 1, Tq, Tk] an attention mask shared by the batch.
  void scores(const View4& q, const View4& k, float scale, const float* bias,
              const std::array<int64_t, 4>& bias_dims, float* scores);

  // In-place softmax over the last axis of [rows, cols].
  void softmax(float* scores, int64_t rows, int64_t cols);

  // out[B, H, Tq, Dv] (strided view; data is written) = probabilities[B, H, Tq, Tk] v[B, H, Tk,
  // Dv].
  void context(const float* probabilities, const View4& v, const View4& out);

 private:
  Runtime* runtime_;
  std::unordered_map<std::string, BoundPrimitive> cache_;
};

// LayerNorm over the last axis of [rows, width] with gamma and beta; in place when src == dst.
class LayerNorm {
 public:
  LayerNorm(Runtime& runtime, const float* gamma, const float* beta, int64_t width, float epsilon);
  void operator()(const float* src, int64_t rows, float* dst);

 private:
  Runtime* runtime_;
  const float* gamma_;
  const float* beta_;
  int64_t width_;
  float epsilon_;
  std::map<std::pair<int64_t, int>, BoundPrimitive> plans_;
};

}  // namespace tinyenc
