#include "engine/onednn.h"

#include <omp.h>

#include <oneapi/dnnl/dnnl.hpp>

namespace tinyenc {

std::string onednn_version() {
  const dnnl_version_t* version = dnnl_version();
  return std::to_string(version->major) + "." + std::to_string(version->minor) + "." +
         std::to_string(version->patch) + " (commit " + version->hash + ", cpu runtime " +
         (version->cpu_runtime == DNNL_RUNTIME_OMP ? "OpenMP" : "other") + ")";
}

int max_threads() { return omp_get_max_threads(); }

}  // namespace tinyenc
