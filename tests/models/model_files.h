// Model files written by tests: safetensors files with chosen tensors, dtypes, header bytes and
// data alignment, and model folders (config.json + model.safetensors).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tinyenc::testing {

struct TestTensor {
  std::string name;
  std::string dtype = "F32";
  std::vector<int64_t> shape;
  std::vector<std::byte> data;  // little-endian, as stored
};

// An F32 tensor whose element i is `first + i / 1024` (exact in float32 for small tensors), so
// that a test can tell which tensor a pointer reaches.
TestTensor f32_tensor(const std::string& name, std::vector<int64_t> shape, float first);
TestTensor u16_tensor(const std::string& name, const std::string& dtype, std::vector<int64_t> shape,
                      const std::vector<uint16_t>& values);

// The header JSON the tensors imply, with data_offsets packed in the given order.
nlohmann::json safetensors_header(const std::vector<TestTensor>& tensors);

// A whole file: length, header text, data. The header is padded with spaces so that the data
// area starts at a multiple of 4 plus `data_misalignment` (0..3) bytes.
std::vector<std::byte> safetensors_bytes(const std::vector<TestTensor>& tensors,
                                         int data_misalignment = 0);
// A file with a hand-written header and data area.
std::vector<std::byte> safetensors_bytes(const std::string& header,
                                         const std::vector<std::byte>& data);

void write_file(const std::filesystem::path& path, const std::vector<std::byte>& bytes);
void write_text(const std::filesystem::path& path, const std::string& text);

// Sizes of the synthetic models below.
struct TestDims {
  int64_t vocab = 16;
  int64_t d_model = 8;
  int64_t heads = 2;
  int64_t layers = 2;
  int64_t ffn = 12;
  int64_t max_positions = 10;
  int64_t type_vocab = 2;
};

// Hugging Face BERT tensor names under `prefix` ("" or "bert."): embeddings, layers, optionally
// the pooler. Tensor k (in this order) starts at value k.
std::vector<TestTensor> bert_tensors(const TestDims& dims, const std::string& prefix,
                                     bool with_pooler);
// A BertConfig config.json for `dims`.
nlohmann::json bert_config(const TestDims& dims);

// Removes the named tensor; returns it (for tests that put it back changed).
TestTensor remove_tensor(std::vector<TestTensor>& tensors, const std::string& name);

// Writes <dir>/config.json and <dir>/model.safetensors.
void write_model(const std::filesystem::path& dir, const nlohmann::json& config,
                 const std::vector<TestTensor>& tensors);

}  // namespace tinyenc::testing
