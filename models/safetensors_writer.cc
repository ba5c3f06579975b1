#include "models/safetensors_writer.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace tinyenc {

void write_safetensors(const std::filesystem::path& path, std::vector<TensorToWrite> tensors,
                       const std::map<std::string, std::string>& metadata) {
  std::stable_sort(tensors.begin(), tensors.end(),
                   [](const TensorToWrite& a, const TensorToWrite& b) {
                     return dtype_size(a.dtype) > dtype_size(b.dtype);
                   });
  nlohmann::json header = nlohmann::json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  uint64_t offset = 0;
  for (const TensorToWrite& tensor : tensors) {
    uint64_t elements = 1;
    for (int64_t size : tensor.shape) elements *= static_cast<uint64_t>(size);
    if (elements * dtype_size(tensor.dtype) != tensor.bytes.size()) {
      throw std::logic_error(
          "tensor '" + tensor.name + "': " + std::to_string(tensor.bytes.size()) + " bytes for " +
          std::string(dtype_name(tensor.dtype)) + " " + shape_string(tensor.shape));
    }
    header[tensor.name] = {{"dtype", std::string(dtype_name(tensor.dtype))},
                           {"shape", tensor.shape},
                           {"data_offsets", {offset, offset + tensor.bytes.size()}}};
    offset += tensor.bytes.size();
  }
  std::string text = header.dump();
  text.append((8 - (8 + text.size()) % 8) % 8, ' ');

  const auto fail = [&](const std::string& what) {
    throw std::runtime_error(path.string() + ": " + what + ": " + std::strerror(errno));
  };
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "wb"), std::fclose);
  if (!file) fail("cannot create");
  unsigned char length[8];
  for (int i = 0; i < 8; ++i) length[i] = static_cast<unsigned char>(text.size() >> (8 * i));
  if (std::fwrite(length, 1, 8, file.get()) != 8 ||
      std::fwrite(text.data(), 1, text.size(), file.get()) != text.size()) {
    fail("cannot write");
  }
  for (const TensorToWrite& tensor : tensors) {
    if (!tensor.bytes.empty() && std::fwrite(tensor.bytes.data(), 1, tensor.bytes.size(),
                                             file.get()) != tensor.bytes.size()) {
      fail("cannot write");
    }
  }
  if (std::fflush(file.get()) != 0) fail("cannot write");
  if (std::fclose(file.release()) != 0) fail("cannot close");
}

}  // namespace tinyenc
