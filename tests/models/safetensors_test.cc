// The safetensors reader: valid files, dtype conversion, alignment, and one test per kind of bad
// file, each asserting that the message names the file and the tensor or field.
#include "models/safetensors.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "tests/models/model_files.h"
#include "tests/support/temp_folder.h"

namespace tinyenc {
namespace {

using testing::f32_tensor;
using testing::safetensors_bytes;
using testing::TempFolder;
using testing::TestTensor;
using testing::u16_tensor;
using testing::write_file;

// The message of the exception that opening `bytes` as a file throws, "" if none.
std::string open_error(const std::vector<std::byte>& bytes, const std::filesystem::path& path) {
  write_file(path, bytes);
  try {
    SafetensorsFile file(path);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

class SafetensorsTest : public ::testing::Test {
 protected:
  std::string error_of(const std::vector<std::byte>& bytes) { return open_error(bytes, path()); }
  std::string error_of_header(const std::string& header, size_t data_bytes) {
    return error_of(safetensors_bytes(header, std::vector<std::byte>(data_bytes)));
  }
  std::filesystem::path path() const { return dir_.path() / "model.safetensors"; }
  std::string prefix() const { return path().string() + ": "; }

  TempFolder dir_{"tinyenc_safetensors"};
};

TEST_F(SafetensorsTest, ReadsNamesShapesMetadataAndValuesInPlace) {
  const std::vector<TestTensor> tensors = {f32_tensor("b", {2, 3}, 1.0f),
                                           f32_tensor("a", {4}, 7.0f)};
  std::string header = testing::safetensors_header(tensors).dump();
  header.insert(header.size() - 1, R"(,"__metadata__":{"format":"pt"})");
  while ((8 + header.size()) % 8 != 0) header += ' ';
  std::vector<std::byte> data = tensors[0].data;
  data.insert(data.end(), tensors[1].data.begin(), tensors[1].data.end());
  write_file(path(), safetensors_bytes(header, data));

  SafetensorsFile file(path());
  ASSERT_EQ(file.tensors().size(), 2u);
  EXPECT_EQ(file.tensors()[0].name, "a");  // sorted by name
  const TensorInfo* b = file.find("b");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->dtype, DType::kF32);
  EXPECT_EQ(b->shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(b->elements, 6u);
  EXPECT_EQ(b->begin, 0u);
  EXPECT_EQ(b->end, 24u);
  EXPECT_EQ(file.find("c"), nullptr);
  EXPECT_EQ(file.metadata().at("format"), "pt");

  // Aligned F32 is used in place: the pointer is into the mapping.
  const float* values = file.float32(*b);
  EXPECT_EQ(static_cast<const void*>(values), static_cast<const void*>(file.data(*b).data()));
  EXPECT_EQ(values[0], 1.0f);
  EXPECT_EQ(values[5], 1.0f + 5.0f / 1024.0f);
  EXPECT_EQ(file.float32(*file.find("a"))[3], 7.0f + 3.0f / 1024.0f);
}

TEST_F(SafetensorsTest, EmptyHeaderIsAFileWithoutTensors) {
  write_file(path(), safetensors_bytes("{}", {}));
  EXPECT_TRUE(SafetensorsFile(path()).tensors().empty());
}

TEST_F(SafetensorsTest, ZeroSizedAndScalarTensors) {
  const std::vector<TestTensor> tensors = {f32_tensor("empty", {3, 0}, 0.0f),
                                           f32_tensor("scalar", {}, 5.0f)};
  write_file(path(), safetensors_bytes(tensors));
  SafetensorsFile file(path());
  EXPECT_EQ(file.find("empty")->elements, 0u);
  EXPECT_EQ(file.find("scalar")->elements, 1u);
  EXPECT_EQ(file.float32(*file.find("scalar"))[0], 5.0f);
}

TEST_F(SafetensorsTest, WidensF16AndBF16Exactly) {
  // 1.0, -2.0, smallest subnormal, largest subnormal, largest finite (65504), -0.0
  // (Infinities and NaN widen exactly too, float16_test.cc; as weights they are refused, below.)
  const std::vector<uint16_t> f16 = {0x3C00, 0xC000, 0x0001, 0x03FF, 0x7BFF, 0x8000};
  // 1.0, -2.0, smallest subnormal, 3.140625, lowest finite, 65536
  const std::vector<uint16_t> bf16 = {0x3F80, 0xC000, 0x0001, 0x4049, 0xFF7F, 0x4780};
  write_file(path(), safetensors_bytes({u16_tensor("half", "F16", {2, 3}, f16),
                                        u16_tensor("brain", "BF16", {6}, bf16)}));
  SafetensorsFile file(path());
  const float* half = file.float32(*file.find("half"));
  EXPECT_EQ(half[0], 1.0f);
  EXPECT_EQ(half[1], -2.0f);
  EXPECT_EQ(half[2], std::ldexp(1.0f, -24));
  EXPECT_EQ(half[3], std::ldexp(1023.0f, -24));
  EXPECT_EQ(half[4], 65504.0f);
  EXPECT_TRUE(std::signbit(half[5]) && half[5] == 0.0f);
  const float* brain = file.float32(*file.find("brain"));
  EXPECT_EQ(brain[0], 1.0f);
  EXPECT_EQ(brain[1], -2.0f);
  EXPECT_EQ(brain[2], std::ldexp(1.0f, -133));
  EXPECT_EQ(brain[3], 3.140625f);
  EXPECT_EQ(brain[4], -0x1.fep127f);
  EXPECT_EQ(brain[5], 65536.0f);
  // Converted once: asking again gives the same buffer.
  EXPECT_EQ(file.float32(*file.find("half")), half);
}

// A NaN or an infinity among the weights would turn every output it reaches into NaN: refused
// when the tensor is loaded, naming the element, whatever the dtype and wherever it lies.
TEST_F(SafetensorsTest, NonFiniteWeightsAreRefused) {
  const auto f32_with = [](float value, size_t index) {
    TestTensor tensor = f32_tensor("w", {3, 2000}, 0.0f);  // past the scan's first block
    std::memcpy(tensor.data.data() + index * sizeof value, &value, sizeof value);
    return tensor;
  };
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const auto error_of_tensor = [&](const TestTensor& tensor, int misalignment) {
    write_file(path(), safetensors_bytes({tensor}, misalignment));
    SafetensorsFile file(path());
    try {
      file.float32(file.tensors()[0]);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string where = prefix() + "tensor 'w': element ";
  for (int misalignment : {0, 1}) {  // used in place, or copied first
    SCOPED_TRACE(misalignment);
    EXPECT_EQ(error_of_tensor(f32_with(nan, 0), misalignment),
              where + "[0, 0] (index 0) is NaN; weights must be finite");
    EXPECT_EQ(error_of_tensor(f32_with(-nan, 5999), misalignment),
              where + "[2, 1999] (index 5999) is NaN; weights must be finite");
    EXPECT_EQ(error_of_tensor(f32_with(inf, 4097), misalignment),
              where + "[2, 97] (index 4097) is +Inf; weights must be finite");
    EXPECT_EQ(error_of_tensor(f32_with(-inf, 2000), misalignment),
              where + "[1, 0] (index 2000) is -Inf; weights must be finite");
  }
  EXPECT_EQ(error_of_tensor(u16_tensor("w", "F16", {2, 2}, {0x3C00, 0x0001, 0xFC00, 0x7C00}), 0),
            where + "[1, 0] (index 2) is -Inf; weights must be finite");
  EXPECT_EQ(error_of_tensor(u16_tensor("w", "F16", {3}, {0x7BFF, 0x7E00, 0x3C00}), 0),
            where + "[1] (index 1) is NaN; weights must be finite");
  EXPECT_EQ(error_of_tensor(u16_tensor("w", "BF16", {3}, {0x3F80, 0x7F7F, 0x7F80}), 0),
            where + "[2] (index 2) is +Inf; weights must be finite");
  EXPECT_EQ(error_of_tensor(u16_tensor("w", "BF16", {}, {0xFFC1}), 0),
            where + "[] (index 0) is NaN; weights must be finite");
}

TEST_F(SafetensorsTest, MisalignedF32IsCopiedToAlignedStorage) {
  // The data area starts at 8 + header length, which nothing forces to a multiple of 4; a 1-byte
  // tensor before the weights misaligns them too.
  const TestTensor weights = f32_tensor("weights", {5}, 3.0f);
  const TestTensor byte{"byte", "U8", {1}, {std::byte{9}}};
  const std::vector<std::pair<std::vector<TestTensor>, int>> cases = {
      {{weights}, 1}, {{weights}, 2}, {{weights}, 3}, {{byte, weights}, 0}};
  for (const auto& [tensors, misalignment] : cases) {
    write_file(path(), safetensors_bytes(tensors, misalignment));
    SafetensorsFile file(path());
    const TensorInfo& info = *file.find("weights");
    ASSERT_NE(reinterpret_cast<uintptr_t>(file.data(info).data()) % alignof(float), 0u);
    const float* values = file.float32(info);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(values) % alignof(float), 0u);
    for (int i = 0; i < 5; ++i) EXPECT_EQ(values[i], 3.0f + i / 1024.0f);
  }
}

TEST_F(SafetensorsTest, ParsesFromMemoryAtAnyAlignment) {
  const std::vector<std::byte> bytes = safetensors_bytes({f32_tensor("x", {3}, 2.0f)});
  std::vector<std::byte> buffer(bytes.size() + 3);
  for (size_t shift = 0; shift < 4; ++shift) {
    std::copy(bytes.begin(), bytes.end(), buffer.begin() + shift);
    const std::span<const std::byte> view = std::span(buffer).subspan(shift, bytes.size());
    SafetensorsFile file(view, "memory");
    EXPECT_EQ(file.name(), "memory");
    EXPECT_EQ(file.float32(*file.find("x"))[2], 2.0f + 2.0f / 1024.0f);
  }
}

TEST_F(SafetensorsTest, MissingFile) {
  try {
    SafetensorsFile file(dir_.path() / "absent.safetensors");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), (dir_.path() / "absent.safetensors").string() +
                                         ": cannot open: No such file or directory");
  }
}

TEST_F(SafetensorsTest, FolderInsteadOfFile) {
  try {
    SafetensorsFile file(dir_.path());
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), dir_.path().string() + ": is a folder, not a file");
  }
}

TEST_F(SafetensorsTest, EmptyFile) {
  EXPECT_EQ(error_of({}), prefix() +
                              "file is 0 bytes, too short for the 8-byte header length that "
                              "starts a safetensors file");
}

TEST_F(SafetensorsTest, TruncatedInsideTheData) {
  std::vector<std::byte> bytes =
      safetensors_bytes({f32_tensor("first", {4}, 0.0f), f32_tensor("second", {4}, 1.0f)});
  bytes.resize(bytes.size() - 5);
  EXPECT_EQ(
      error_of(bytes),
      prefix() + "tensor 'second': data_offsets: [16, 32] extend past the data area (27 bytes)");
}

TEST_F(SafetensorsTest, HeaderLengthBeyondTheFile) {
  std::vector<std::byte> bytes = safetensors_bytes({f32_tensor("x", {4}, 0.0f)});
  bytes.resize(20);  // cut inside the header
  EXPECT_EQ(error_of(bytes).substr(0, prefix().size() + 14), prefix() + "header length ");
  EXPECT_NE(error_of(bytes).find("exceeds the 12 bytes after the length field (truncated file?)"),
            std::string::npos);
}

TEST_F(SafetensorsTest, HeaderLengthOverTheLimit) {
  // A sparse file just over the limit: the length is refused before anything is read.
  const uint64_t length = kMaxSafetensorsHeaderBytes + 1;
  std::vector<std::byte> start(8);
  for (int i = 0; i < 8; ++i) start[i] = static_cast<std::byte>((length >> (8 * i)) & 0xff);
  write_file(path(), start);
  ASSERT_EQ(::truncate(path().c_str(), static_cast<off_t>(8 + length)), 0);
  try {
    SafetensorsFile file(path());
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              prefix() + "header length 100000001 exceeds the limit of 100000000 bytes");
  }
}

TEST_F(SafetensorsTest, MalformedJsonHeader) {
  const std::string error = error_of_header(R"({"x": {"dtype": "F32",)", 0);
  EXPECT_EQ(error.substr(0, prefix().size() + 26), prefix() + "header is not valid JSON: ");
  EXPECT_NE(error.find("syntax error"), std::string::npos) << error;
}

TEST_F(SafetensorsTest, HeaderWithNumberOverflow) {
  EXPECT_EQ(
      error_of_header(R"({"w": {"dtype": "F32", "shape": [1e999], "data_offsets": [0, 0]}})", 0),
      prefix() + "header is not valid JSON: number overflow parsing '1e999'");
}

TEST_F(SafetensorsTest, HeaderWithInvalidUtf8) {
  const std::string error = error_of_header("{\"caf\xC3\x28\": 1}", 0);
  EXPECT_EQ(error.substr(0, prefix().size() + 26), prefix() + "header is not valid JSON: ");
  EXPECT_NE(error.find("UTF-8"), std::string::npos) << error;
}

TEST_F(SafetensorsTest, HeaderNotAnObject) {
  EXPECT_EQ(error_of_header("[1, 2]", 0), prefix() + "header must be a JSON object");
}

TEST_F(SafetensorsTest, DuplicateTensorName) {
  EXPECT_EQ(error_of_header(R"({"x": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]},
                                "x": {"dtype": "U8", "shape": [1], "data_offsets": [1, 2]}})",
                            2),
            prefix() + "header names 'x' more than once");
}

// A field or metadata key given twice is as ambiguous as a tensor named twice.
TEST_F(SafetensorsTest, RepeatedKeysInsideEntries) {
  EXPECT_EQ(error_of_header(R"({"x": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1],
                                      "dtype": "F16"}})",
                            1),
            prefix() + "header: x: key 'dtype' appears more than once");
  EXPECT_EQ(error_of_header(R"({"__metadata__": {"format": "pt", "format": "tf"}})", 0),
            prefix() + "header: __metadata__: key 'format' appears more than once");
}

TEST_F(SafetensorsTest, OffsetsOutOfRange) {
  EXPECT_EQ(
      error_of_header(R"({"w": {"dtype": "F32", "shape": [4], "data_offsets": [8, 24]}})", 16),
      prefix() + "tensor 'w': data_offsets: [8, 24] extend past the data area (16 bytes)");
  EXPECT_EQ(error_of_header(R"({"w": {"dtype": "F32", "shape": [0], "data_offsets": [9, 8]}})", 16),
            prefix() + "tensor 'w': data_offsets: [9, 8] ends before it begins");
  EXPECT_EQ(error_of_header(R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [-4, 0]}})", 4),
            prefix() + "tensor 'w': data_offsets: must be integers in [0, 2^63)");
  EXPECT_EQ(error_of_header(R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [0]}})", 4),
            prefix() + "tensor 'w': data_offsets: must be [begin, end]");
}

TEST_F(SafetensorsTest, OverlappingOffsets) {
  EXPECT_EQ(error_of_header(R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                          "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}})",
                            12),
            prefix() + "tensor 'b': data_offsets: [4, 12] overlap tensor 'a' [0, 8]");
}

TEST_F(SafetensorsTest, BytesNoTensorOwns) {
  EXPECT_EQ(
      error_of_header(R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}})", 12),
      prefix() + "bytes [0, 4) of the data area belong to no tensor");
  EXPECT_EQ(error_of_header(R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})", 10),
            prefix() + "bytes [8, 10) of the data area belong to no tensor");
}

TEST_F(SafetensorsTest, SizeMismatch) {
  EXPECT_EQ(
      error_of_header(R"({"w": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 12]}})", 12),
      prefix() + "tensor 'w': data_offsets: [0, 12] hold 12 bytes, but F32 [2, 2] needs 16");
}

TEST_F(SafetensorsTest, ShapeWhoseSizeOverflows) {
  EXPECT_EQ(
      error_of_header(
          R"({"w": {"dtype": "F32", "shape": [4611686018427387904, 8], "data_offsets": [0, 0]}})",
          0),
      prefix() + "tensor 'w': shape: 8 makes the element count overflow");
  EXPECT_EQ(
      error_of_header(
          R"({"w": {"dtype": "F32", "shape": [4611686018427387904], "data_offsets": [0, 0]}})", 0),
      prefix() + "tensor 'w': shape: [4611686018427387904] makes the byte size overflow");
  EXPECT_EQ(
      error_of_header(R"({"w": {"dtype": "F32", "shape": [2, -1], "data_offsets": [0, 0]}})", 0),
      prefix() + "tensor 'w': shape: dimensions must be integers in [0, 2^63)");
  EXPECT_EQ(
      error_of_header(R"({"w": {"dtype": "F32", "shape": [2.5], "data_offsets": [0, 0]}})", 0),
      prefix() + "tensor 'w': shape: dimensions must be integers in [0, 2^63)");
}

TEST_F(SafetensorsTest, UnknownDtype) {
  EXPECT_EQ(error_of_header(R"({"w": {"dtype": "Q4", "shape": [1], "data_offsets": [0, 1]}})", 1),
            prefix() + "tensor 'w': dtype: unknown dtype 'Q4'");
  EXPECT_EQ(error_of_header(R"({"w": {"dtype": 32, "shape": [1], "data_offsets": [0, 1]}})", 1),
            prefix() + "tensor 'w': dtype: must be a string");
}

TEST_F(SafetensorsTest, KnownButUnsupportedDtypeFailsWhenLoaded) {
  // I64 is a valid safetensors dtype (transformers saves position_ids so), only not a weight.
  write_file(path(),
             safetensors_bytes({TestTensor{"ids", "I64", {2}, std::vector<std::byte>(16)}}));
  SafetensorsFile file(path());
  EXPECT_EQ(dtype_name(file.find("ids")->dtype), "I64");
  try {
    file.float32(*file.find("ids"));
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              prefix() + "tensor 'ids': unsupported dtype I64 (weights must be F32, F16 or BF16)");
  }
}

TEST_F(SafetensorsTest, MissingAndUnknownFields) {
  EXPECT_EQ(error_of_header(R"({"w": {"shape": [1], "data_offsets": [0, 4]}})", 4),
            prefix() + "tensor 'w': dtype: missing");
  EXPECT_EQ(error_of_header(R"({"w": {"dtype": "F32", "data_offsets": [0, 4]}})", 4),
            prefix() + "tensor 'w': shape: missing");
  EXPECT_EQ(error_of_header(R"({"w": {"dtype": "F32", "shape": [1]}})", 4),
            prefix() + "tensor 'w': data_offsets: missing");
  EXPECT_EQ(error_of_header(
                R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4], "scale": 2}})", 4),
            prefix() + "tensor 'w': unknown field 'scale'");
  EXPECT_EQ(error_of_header(R"({"w": [1, 2]})", 0),
            prefix() + "tensor 'w': must be an object with dtype, shape and data_offsets");
}

TEST_F(SafetensorsTest, MetadataMustMapStringsToStrings) {
  EXPECT_EQ(error_of_header(R"({"__metadata__": {"format": 1}})", 0),
            prefix() + "__metadata__.'format': must be a string");
  EXPECT_EQ(error_of_header(R"({"__metadata__": []})", 0),
            prefix() + "__metadata__: must be an object of strings");
}

TEST_F(SafetensorsTest, ControlCharactersInNamesStayOnOneLine) {
  EXPECT_EQ(error_of_header(
                "{\"a\\nb\": {\"dtype\": \"Q4\", \"shape\": [], \"data_offsets\": [0, 0]}}", 0),
            prefix() + "tensor 'a\\nb': dtype: unknown dtype 'Q4'");
}

}  // namespace
}  // namespace tinyenc
