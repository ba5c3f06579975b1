#include "models/safetensors.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <utility>

#include "engine/bf16.h"
#include "engine/io/json_document.h"
#include "engine/io/mapped_file.h"
#include "engine/io/quoted.h"
#include "models/float16.h"

namespace tinyenc {
namespace {

// A tensor's whole name, however long (in_quotes cuts at 60 bytes): the error must say which.
std::string tensor_label(std::string_view name) {
  return "tensor '" + escape_control_characters(name) + "'";
}

struct DTypeInfo {
  DType dtype;
  std::string_view name;
  size_t size;
};

constexpr std::array<DTypeInfo, 15> kDTypes = {{
    {DType::kBool, "BOOL", 1},
    {DType::kU8, "U8", 1},
    {DType::kI8, "I8", 1},
    {DType::kU16, "U16", 2},
    {DType::kI16, "I16", 2},
    {DType::kF16, "F16", 2},
    {DType::kBF16, "BF16", 2},
    {DType::kU32, "U32", 4},
    {DType::kI32, "I32", 4},
    {DType::kF32, "F32", 4},
    {DType::kU64, "U64", 8},
    {DType::kI64, "I64", 8},
    {DType::kF64, "F64", 8},
    {DType::kF8E4M3, "F8_E4M3", 1},
    {DType::kF8E5M2, "F8_E5M2", 1},
}};

const DTypeInfo& info_of(DType dtype) {
  for (const DTypeInfo& info : kDTypes) {
    if (info.dtype == dtype) return info;
  }
  throw std::logic_error("dtype missing from kDTypes");
}

// A JSON integer >= 0 that fits in int64_t, or nullopt.
std::optional<uint64_t> non_negative_integer(const nlohmann::json& value) {
  if (value.is_number_unsigned()) {
    const uint64_t result = value.get<uint64_t>();
    if (result <= static_cast<uint64_t>(INT64_MAX)) return result;
  }
  return std::nullopt;
}

// The index of the first NaN or infinity among `count` values, or `count` when all are finite.
// Both have an all-ones exponent. Every weight passes through here once at load, so the common
// case (all finite) is a branch-free OR over blocks that the compiler vectorises; only a block
// that holds a culprit is searched element by element.
uint64_t first_non_finite(const float* values, uint64_t count) {
  constexpr uint32_t kExponent = 0x7f800000u;
  constexpr uint64_t kBlock = 4096;
  for (uint64_t start = 0; start < count; start += kBlock) {
    const uint64_t end = std::min(count, start + kBlock);
    uint32_t found = 0;
    for (uint64_t i = start; i < end; ++i) {
      found |= (std::bit_cast<uint32_t>(values[i]) & kExponent) == kExponent;
    }
    if (!found) continue;
    for (uint64_t i = start; i < end; ++i) {
      if ((std::bit_cast<uint32_t>(values[i]) & kExponent) == kExponent) return i;
    }
  }
  return count;
}

// [rows, columns] of a matrix; a vector is one row.
std::pair<int64_t, int64_t> matrix_shape(const TensorInfo& tensor) {
  if (tensor.shape.size() < 2) return {1, static_cast<int64_t>(tensor.elements)};
  const int64_t rows = tensor.shape[0];
  return {rows, rows == 0 ? 0 : static_cast<int64_t>(tensor.elements) / rows};
}

std::string offsets_string(const TensorInfo& tensor) {
  // Appended piecewise: GCC 12 misreports "literal" + std::string&& (-Wrestrict, bug 105329).
  std::string text = "[";
  text += std::to_string(tensor.begin);
  text += ", ";
  text += std::to_string(tensor.end);
  text += "]";
  return text;
}

}  // namespace

std::string_view dtype_name(DType dtype) { return info_of(dtype).name; }

size_t dtype_size(DType dtype) { return info_of(dtype).size; }

std::optional<DType> parse_dtype(std::string_view name) {
  for (const DTypeInfo& info : kDTypes) {
    if (info.name == name) return info.dtype;
  }
  return std::nullopt;
}

std::string shape_string(std::span<const int64_t> shape) {
  std::string result = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) result += ", ";
    result += std::to_string(shape[i]);
  }
  return result + "]";
}

SafetensorsFile::SafetensorsFile(const std::filesystem::path& path)
    : mapping_(std::make_unique<MappedFile>(path)), name_(path.string()) {
  bytes_ = mapping_->bytes();
  parse_header();
}

SafetensorsFile::SafetensorsFile(std::span<const std::byte> bytes, std::string name)
    : bytes_(bytes), name_(std::move(name)) {
  parse_header();
}

SafetensorsFile::~SafetensorsFile() = default;

void SafetensorsFile::parse_header() {
  const auto fail = [this](const std::string& what) {
    throw std::invalid_argument(name_ + ": " + what);
  };
  if (bytes_.size() < 8) {
    fail("file is " + std::to_string(bytes_.size()) +
         " bytes, too short for the 8-byte header length that starts a safetensors file");
  }
  uint64_t header_length = 0;
  for (int i = 7; i >= 0; --i) {
    header_length = (header_length << 8) | static_cast<uint8_t>(bytes_[i]);
  }
  const uint64_t after_length = bytes_.size() - 8;
  if (header_length > after_length) {
    fail("header length " + std::to_string(header_length) + " exceeds the " +
         std::to_string(after_length) + " bytes after the length field (truncated file?)");
  }
  if (header_length > kMaxSafetensorsHeaderBytes) {
    fail("header length " + std::to_string(header_length) + " exceeds the limit of " +
         std::to_string(kMaxSafetensorsHeaderBytes) + " bytes");
  }
  const auto* header_begin = reinterpret_cast<const char*>(bytes_.data()) + 8;
  data_area_ = bytes_.subspan(8 + header_length);

  // A tensor named twice, or a field given twice, could make two readers see different tensors.
  nlohmann::json header;
  try {
    header = parse_json_unique_keys(std::string_view(header_begin, header_length));
  } catch (const RepeatedJsonKey& e) {
    if (e.top_level()) fail("header names " + in_quotes(e.key()) + " more than once");
    fail(std::string("header: ") + e.what());
  } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for 1e999
    fail("header is not valid JSON: " + json_error_message(e));
  }
  if (!header.is_object()) fail("header must be a JSON object");

  for (const auto& [key, entry] : header.items()) {
    if (key == "__metadata__") {
      if (!entry.is_object()) fail("__metadata__: must be an object of strings");
      for (const auto& [meta_key, meta_value] : entry.items()) {
        if (!meta_value.is_string())
          fail("__metadata__." + in_quotes(meta_key) + ": must be a string");
        metadata_.emplace(meta_key, meta_value.get<std::string>());
      }
      continue;
    }
    const std::string where = tensor_label(key) + ": ";
    if (!entry.is_object()) fail(where + "must be an object with dtype, shape and data_offsets");
    for (const auto& [field, value] : entry.items()) {
      if (field != "dtype" && field != "shape" && field != "data_offsets") {
        fail(where + "unknown field " + in_quotes(field));
      }
    }
    TensorInfo tensor;
    tensor.name = key;

    const auto dtype_field = entry.find("dtype");
    if (dtype_field == entry.end()) fail(where + "dtype: missing");
    if (!dtype_field->is_string()) fail(where + "dtype: must be a string");
    const std::string& dtype_text = dtype_field->get_ref<const std::string&>();
    const std::optional<DType> dtype = parse_dtype(dtype_text);
    if (!dtype) fail(where + "dtype: unknown dtype " + in_quotes(dtype_text));
    tensor.dtype = *dtype;

    const auto shape_field = entry.find("shape");
    if (shape_field == entry.end()) fail(where + "shape: missing");
    if (!shape_field->is_array()) fail(where + "shape: must be an array of integers");
    tensor.elements = 1;
    for (const nlohmann::json& dimension : *shape_field) {
      const std::optional<uint64_t> size = non_negative_integer(dimension);
      if (!size) fail(where + "shape: dimensions must be integers in [0, 2^63)");
      tensor.shape.push_back(static_cast<int64_t>(*size));
      if (__builtin_mul_overflow(tensor.elements, *size, &tensor.elements)) {
        fail(where + "shape: " + dimension.dump() + " makes the element count overflow");
      }
    }
    uint64_t byte_size = 0;
    if (__builtin_mul_overflow(tensor.elements, dtype_size(tensor.dtype), &byte_size)) {
      fail(where + "shape: " + shape_string(tensor.shape) + " makes the byte size overflow");
    }

    const auto offsets_field = entry.find("data_offsets");
    if (offsets_field == entry.end()) fail(where + "data_offsets: missing");
    if (!offsets_field->is_array() || offsets_field->size() != 2) {
      fail(where + "data_offsets: must be [begin, end]");
    }
    const std::optional<uint64_t> begin = non_negative_integer((*offsets_field)[0]);
    const std::optional<uint64_t> end = non_negative_integer((*offsets_field)[1]);
    if (!begin || !end) fail(where + "data_offsets: must be integers in [0, 2^63)");
    tensor.begin = *begin;
    tensor.end = *end;
    if (tensor.begin > tensor.end) {
      fail(where + "data_offsets: " + offsets_string(tensor) + " ends before it begins");
    }
    if (tensor.end > data_area_.size()) {
      fail(where + "data_offsets: " + offsets_string(tensor) + " extend past the data area (" +
           std::to_string(data_area_.size()) + " bytes)");
    }
    if (tensor.end - tensor.begin != byte_size) {
      fail(where + "data_offsets: " + offsets_string(tensor) + " hold " +
           std::to_string(tensor.end - tensor.begin) + " bytes, but " + dtype_text + " " +
           shape_string(tensor.shape) + " needs " + std::to_string(byte_size));
    }
    tensors_.push_back(std::move(tensor));
  }

  // The tensors must tile the data area: sorted by offset, each begins where the last ended.
  std::vector<const TensorInfo*> by_offset;
  for (const TensorInfo& tensor : tensors_) by_offset.push_back(&tensor);
  std::sort(by_offset.begin(), by_offset.end(), [](const TensorInfo* a, const TensorInfo* b) {
    return std::pair(a->begin, a->end) < std::pair(b->begin, b->end);
  });
  uint64_t covered = 0;
  const TensorInfo* previous = nullptr;
  for (const TensorInfo* tensor : by_offset) {
    if (tensor->begin < covered) {
      fail(tensor_label(tensor->name) + ": data_offsets: " + offsets_string(*tensor) + " overlap " +
           tensor_label(previous->name) + " " + offsets_string(*previous));
    }
    if (tensor->begin > covered) {
      fail("bytes [" + std::to_string(covered) + ", " + std::to_string(tensor->begin) +
           ") of the data area belong to no tensor");
    }
    covered = tensor->end;
    previous = tensor;
  }
  if (covered != data_area_.size()) {
    fail("bytes [" + std::to_string(covered) + ", " + std::to_string(data_area_.size()) +
         ") of the data area belong to no tensor");
  }
}

const TensorInfo* SafetensorsFile::find(std::string_view tensor_name) const {
  const auto it = std::lower_bound(
      tensors_.begin(), tensors_.end(), tensor_name,
      [](const TensorInfo& tensor, std::string_view name) { return tensor.name < name; });
  return it != tensors_.end() && it->name == tensor_name ? &*it : nullptr;
}

std::span<const std::byte> SafetensorsFile::data(const TensorInfo& tensor) const {
  return data_area_.subspan(tensor.begin, tensor.end - tensor.begin);
}

const float* SafetensorsFile::float32(const TensorInfo& tensor) {
  const std::span<const std::byte> bytes = data(tensor);
  if (tensor.dtype == DType::kF32 &&
      reinterpret_cast<uintptr_t>(bytes.data()) % alignof(float) == 0) {
    const auto* values = reinterpret_cast<const float*>(bytes.data());
    check_finite(tensor, values);
    return values;
  }
  if (const auto it = converted_.find(tensor.name); it != converted_.end()) {
    return it->second.data();
  }
  std::vector<float> values(tensor.elements);
  switch (tensor.dtype) {
    case DType::kF32:
      if (!values.empty()) std::memcpy(values.data(), bytes.data(), bytes.size());
      break;
    case DType::kF16:
      convert_f16_to_float(bytes.data(), values.size(), values.data());
      break;
    case DType::kBF16:
      convert_bf16_to_float(bytes.data(), values.size(), values.data());
      break;
    default:
      throw std::invalid_argument(name_ + ": " + tensor_label(tensor.name) +
                                  ": unsupported dtype " + std::string(dtype_name(tensor.dtype)) +
                                  " (weights must be F32, F16 or BF16)");
  }
  check_finite(tensor, values.data());
  return converted_.emplace(tensor.name, std::move(values)).first->second.data();
}

const uint16_t* SafetensorsFile::bf16(const TensorInfo& tensor) {
  if (tensor.dtype != DType::kBF16) {
    throw std::logic_error(name_ + ": " + tensor_label(tensor.name) + " is not BF16");
  }
  const std::span<const std::byte> bytes = data(tensor);
  if (reinterpret_cast<uintptr_t>(bytes.data()) % alignof(uint16_t) == 0) {
    return reinterpret_cast<const uint16_t*>(bytes.data());
  }
  if (const auto it = copied_bf16_.find(tensor.name); it != copied_bf16_.end()) {
    return it->second.data();
  }
  std::vector<uint16_t> bits(tensor.elements);
  if (!bits.empty()) std::memcpy(bits.data(), bytes.data(), bytes.size());
  return copied_bf16_.emplace(tensor.name, std::move(bits)).first->second.data();
}

const int8_t* SafetensorsFile::int8(const TensorInfo& tensor) const {
  if (tensor.dtype != DType::kI8) {
    throw std::logic_error(name_ + ": " + tensor_label(tensor.name) + " is not I8");
  }
  return reinterpret_cast<const int8_t*>(data(tensor).data());
}

const float* SafetensorsFile::widened(const TensorInfo& tensor, ComputeDtype dtype,
                                      const void* values, const float* scales) {
  const auto key = std::pair(tensor.name, dtype);
  if (const auto it = widened_.find(key); it != widened_.end()) return it->second.data();
  const auto [rows, columns] = matrix_shape(tensor);
  std::vector<float> widened(tensor.elements);
  dtype_traits(dtype).to_f32(values, scales, rows, columns, widened.data());
  return widened_.emplace(key, std::move(widened)).first->second.data();
}

const SafetensorsFile::Converted& SafetensorsFile::converted(const TensorInfo& tensor,
                                                             ComputeDtype dtype) {
  const auto key = std::pair(tensor.name, dtype);
  if (const auto it = converted_to_.find(key); it != converted_to_.end()) return it->second;
  const float* values = float32(tensor);
  const auto [rows, columns] = matrix_shape(tensor);
  const DtypeTraits& traits = dtype_traits(dtype);
  Converted converted;
  converted.values.resize(tensor.elements * static_cast<uint64_t>(traits.weight_bytes));
  if (traits.channel_scales) converted.scales.resize(static_cast<size_t>(rows));
  traits.from_f32(values, rows, columns, converted.values.data(), converted.scales.data());
  return converted_to_.emplace(key, std::move(converted)).first->second;
}

void SafetensorsFile::check_finite(const TensorInfo& tensor, const float* values) const {
  const uint64_t index = first_non_finite(values, tensor.elements);
  if (index == tensor.elements) return;
  // The element's position in the tensor's shape, last dimension fastest (row-major).
  std::vector<int64_t> position(tensor.shape.size());
  uint64_t rest = index;
  for (size_t d = position.size(); d-- > 0;) {
    const auto size = static_cast<uint64_t>(tensor.shape[d]);
    position[d] = static_cast<int64_t>(rest % size);
    rest /= size;
  }
  const float value = values[index];
  const std::string what = std::isnan(value) ? "NaN" : value > 0 ? "+Inf" : "-Inf";
  throw std::invalid_argument(name_ + ": " + tensor_label(tensor.name) + ": element " +
                              shape_string(position) + " (index " + std::to_string(index) +
                              ") is " + what + "; weights must be finite");
}

}  // namespace tinyenc
