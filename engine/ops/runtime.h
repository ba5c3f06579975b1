// The oneDNN CPU engine and the in-order stream every op of one Encoder runs on.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

namespace tinyenc {

struct Runtime {
  Runtime() : engine(dnnl::engine::kind::cpu, 0), stream(engine) {}
  dnnl::engine engine;
  dnnl::stream stream;
};

}  // namespace tinyenc
