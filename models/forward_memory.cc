#include "models/forward_memory.h"

#include <unistd.h>

#include <cstdio>
#include <stdexcept>

#include "engine/encoder_config.h"

namespace tinyenc {

double forward_bytes(const EncoderConfig& config, int64_t batch, int64_t seq) {
  const double tokens = static_cast<double>(batch) * static_cast<double>(seq);
  const double scores = tokens * static_cast<double>(config.heads) * static_cast<double>(seq);
  const double rows = tokens * static_cast<double>(8 * config.d_model + config.ffn_dim);
  return 4.0 * (scores + rows);
}

void check_forward_memory(const EncoderConfig& config, int64_t batch, int64_t seq,
                          const std::string& what) {
  const double memory =
      static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
  const double needed = forward_bytes(config, batch, seq);
  if (memory > 0 && needed > 0.9 * memory) {
    char sizes[96];
    std::snprintf(sizes, sizeof sizes, "about %.1f GB of activations; this machine has %.1f GB",
                  needed / 1e9, memory / 1e9);
    throw std::invalid_argument(what + ": " + std::to_string(batch) + " x " + std::to_string(seq) +
                                " tokens need " + sizes);
  }
}

}  // namespace tinyenc
