// oneDNN's "describe once, execute many times": a primitive with its argument memory objects
// created once, cached under a small comparable key. A call on a cache hit only rebinds data
// handles, so it allocates nothing.
#pragma once

#include <omp.h>

#include <map>
#include <oneapi/dnnl/dnnl.hpp>
#include <unordered_map>
#include <utility>

namespace tinyenc {

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

// Primitives (or whatever an op keeps per primitive, `Value`) by key. Keys are small structs
// compared member by member (operator<=>), never strings: a lookup builds nothing. oneDNN fixes a
// primitive's thread count when it is created, so every key carries the thread count it was made
// for (see current_threads).
//
// A corpus run meets a new row count with nearly every packed batch, so the cache is bounded:
// when it holds kCapacity entries, a miss empties it first. A reference from get() is valid until
// the next get() on the same cache.
template <class Key, class Value = BoundPrimitive>
class PrimitiveCache {
 public:
  static constexpr size_t kCapacity = 32;

  template <class Make>
  Value& get(const Key& key, Make&& make) {
    auto it = primitives_.find(key);
    if (it == primitives_.end()) {
      if (primitives_.size() >= kCapacity) primitives_.clear();
      it = primitives_.emplace(key, make()).first;
    }
    return it->second;
  }

  size_t size() const { return primitives_.size(); }

 private:
  std::map<Key, Value> primitives_;
};

inline int current_threads() { return omp_get_max_threads(); }

}  // namespace tinyenc
