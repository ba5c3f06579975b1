// Reader for the safetensors format (Hugging Face): an 8-byte little-endian header length N, N
// bytes of JSON {"<tensor>": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]}, ...,
// "__metadata__": {"<key>": "<text>"}}, then the data area those offsets index.
//
// Everything in the header is checked before any tensor is used: known dtypes, shapes whose
// byte size (computed without overflow) equals end - begin, offsets inside the data area, and
// tensors that tile the data area exactly (no overlaps, no unindexed bytes, as the format's
// specification requires). Errors throw std::invalid_argument("<file>: <what>") naming the
// tensor and field; a file that cannot be read throws std::runtime_error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/dtype.h"

namespace tinyenc {

class MappedFile;

// Every dtype name of the format, so that an error can say "unsupported dtype I64" rather than
// "unknown"; F32, F16 and BF16 load as float weights, I8 (with a scale per row, as `tinyenc
// convert` writes it) as quantized ones.
enum class DType {
  kBool,
  kU8,
  kI8,
  kU16,
  kI16,
  kF16,
  kBF16,
  kU32,
  kI32,
  kF32,
  kU64,
  kI64,
  kF64,
  kF8E4M3,
  kF8E5M2
};

std::string_view dtype_name(DType dtype);
std::optional<DType> parse_dtype(std::string_view name);
size_t dtype_size(DType dtype);

struct TensorInfo {
  std::string name;
  DType dtype = DType::kF32;
  std::vector<int64_t> shape;  // [] is a scalar
  uint64_t elements = 0;       // product of shape
  uint64_t begin = 0;          // byte offsets in the data area, end - begin = elements * size
  uint64_t end = 0;
};

// "[32, 128]"
std::string shape_string(std::span<const int64_t> shape);

// Header limit: a real header is kilobytes; refusing huge ones bounds the work a bad file costs.
inline constexpr uint64_t kMaxSafetensorsHeaderBytes = 100u * 1000u * 1000u;

class SafetensorsFile {
 public:
  // Maps the file read-only and checks its header.
  explicit SafetensorsFile(const std::filesystem::path& path);
  // Checks `bytes` as a safetensors file called `name` in errors. The bytes are not copied:
  // they must outlive this object (the fuzz target's entry point; tests of odd alignments).
  SafetensorsFile(std::span<const std::byte> bytes, std::string name);
  ~SafetensorsFile();
  SafetensorsFile(const SafetensorsFile&) = delete;
  SafetensorsFile& operator=(const SafetensorsFile&) = delete;

  const std::string& name() const { return name_; }
  const std::vector<TensorInfo>& tensors() const { return tensors_; }  // sorted by name
  const TensorInfo* find(std::string_view tensor_name) const;          // null when absent
  const std::map<std::string, std::string>& metadata() const { return metadata_; }

  // The tensor's bytes, as stored (little-endian).
  std::span<const std::byte> data(const TensorInfo& tensor) const;

  // The tensor as float32 values, valid while this object lives. F32 is used in place when the
  // data happens to be 4-byte aligned (the data area starts at 8 + header length, which the
  // format does not align) and copied otherwise; F16 and BF16 are widened exactly into buffers
  // owned here. Any other dtype is an error naming the tensor, and so is a NaN or an infinity
  // (naming the element too): one would turn every output it reaches into NaN. Not thread-safe.
  const float* float32(const TensorInfo& tensor);
  // A BF16 tensor's bits as stored: in place when 2-byte aligned, else copied.
  const uint16_t* bf16(const TensorInfo& tensor);
  // An I8 tensor's values, in place.
  const int8_t* int8(const TensorInfo& tensor) const;
  // The tensor's `values` [rows, columns] as `dtype` stores them (scales[r] for row r with the
  // dtypes that have scales) widened to float32 (dtype_traits(dtype).to_f32, engine/dtype.h),
  // into a buffer owned here.
  const float* widened(const TensorInfo& tensor, ComputeDtype dtype, const void* values,
                       const float* scales);

  // A float tensor [rows, columns] converted as `tinyenc convert` stores it and as the engine
  // computes with it (dtype_traits(dtype).from_f32), into buffers owned here: symmetric int8
  // per row with its scales, or bfloat16 rounded to nearest even.
  struct Converted {
    std::vector<std::byte> values;
    std::vector<float> scales;  // one per row, for a dtype with scales
  };
  const Converted& converted(const TensorInfo& tensor, ComputeDtype dtype);

 private:
  void parse_header();
  void check_finite(const TensorInfo& tensor, const float* values) const;

  std::unique_ptr<MappedFile> mapping_;  // null when reading caller-owned bytes
  std::span<const std::byte> bytes_;
  std::span<const std::byte> data_area_;
  std::string name_;
  std::vector<TensorInfo> tensors_;
  std::map<std::string, std::string> metadata_;
  std::map<std::string, std::vector<float>, std::less<>> converted_;
  std::map<std::string, std::vector<uint16_t>, std::less<>> copied_bf16_;
  std::map<std::pair<std::string, ComputeDtype>, Converted> converted_to_;
  std::map<std::pair<std::string, ComputeDtype>, std::vector<float>> widened_;
};

}  // namespace tinyenc
