// How much memory a forward pass takes, checked before it starts: a batch too large for the
// machine is refused in one line rather than killed by the kernel halfway through.
#pragma once

#include <cstdint>
#include <string>

namespace tinyenc {

struct EncoderConfig;

// Bytes of activations one forward pass of `batch` sequences of `seq` tokens holds: the
// [B, H, T, T] attention scores, and about a dozen [B, T, D]-sized buffers (hidden, residual,
// normed, QKV, context, FFN).
double forward_bytes(const EncoderConfig& config, int64_t batch, int64_t seq);

// Throws std::invalid_argument, naming `what` and both sizes, when forward_bytes() exceeds the
// machine's memory.
void check_forward_memory(const EncoderConfig& config, int64_t batch, int64_t seq,
                          const std::string& what);

}  // namespace tinyenc
