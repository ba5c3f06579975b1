// A 64-byte aligned float buffer: activations and scratch memory of the forward pass.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>

namespace tinyenc {

class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  explicit AlignedBuffer(size_t size) { reserve(size); }

  // Makes room for `size` floats; contents are not preserved when it grows.
  void reserve(size_t size) {
    if (size <= capacity_) return;
    const size_t bytes = ((size * sizeof(float) + 63) / 64) * 64;
    float* data = static_cast<float*>(std::aligned_alloc(64, bytes));
    if (data == nullptr) throw std::bad_alloc();
    data_.reset(data);
    capacity_ = size;
  }

  float* data() { return data_.get(); }
  const float* data() const { return data_.get(); }
  size_t capacity() const { return capacity_; }

 private:
  struct Free {
    void operator()(float* p) const { std::free(p); }
  };
  std::unique_ptr<float, Free> data_;
  size_t capacity_ = 0;
};

}  // namespace tinyenc
