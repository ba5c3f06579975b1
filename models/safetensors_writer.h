// Writing a safetensors file (models/safetensors.h describes the format). The header is padded
// with spaces to a multiple of 8 bytes and the tensors are laid out widest dtype first, so that
// every F32 tensor starts 4-byte aligned and every BF16 one 2-byte aligned in the mapped file,
// and the loader can use them in place.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "models/safetensors.h"

namespace tinyenc {

struct TensorToWrite {
  std::string name;
  DType dtype = DType::kF32;
  std::vector<int64_t> shape;
  std::span<const std::byte> bytes;  // little-endian, elements x dtype_size(dtype)
};

// Throws std::runtime_error when the file cannot be written; std::logic_error when a tensor's
// bytes do not match its shape.
void write_safetensors(const std::filesystem::path& path, std::vector<TensorToWrite> tensors,
                       const std::map<std::string, std::string>& metadata);

}  // namespace tinyenc
