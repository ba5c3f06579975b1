#include "models/convert_model.h"

#include <unistd.h>

#include <cstring>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "models/model.h"
#include "models/pipeline.h"
#include "models/safetensors.h"
#include "models/safetensors_writer.h"
#include "tokenizer/regular_file.h"

namespace tinyenc {
namespace {

namespace fs = std::filesystem;

// The hidden folder the output is assembled in; removed unless it was renamed into place.
class StagingFolder {
 public:
  explicit StagingFolder(const fs::path& output) {
    // Appended piecewise: GCC 12 misreports "literal" + std::string&& (-Wrestrict, bug 105329).
    std::string name = ".";
    name += output.filename().string();
    name += ".tinyenc-tmp.";
    name += std::to_string(::getpid());
    path_ = output.parent_path() / name;
    std::error_code error;
    fs::remove_all(path_, error);
    if (!fs::create_directory(path_, error)) {
      throw std::invalid_argument(path_.string() + ": cannot create: " + error.message());
    }
  }
  ~StagingFolder() {
    if (!committed_) {
      std::error_code error;
      fs::remove_all(path_, error);
    }
  }
  StagingFolder(const StagingFolder&) = delete;
  StagingFolder& operator=(const StagingFolder&) = delete;

  const fs::path& path() const { return path_; }
  void commit(const fs::path& output) {
    std::error_code error;
    fs::rename(path_, output, error);  // replaces an empty folder, as rename(2) does
    if (error) throw std::runtime_error(output.string() + ": cannot create: " + error.message());
    committed_ = true;
  }

 private:
  fs::path path_;
  bool committed_ = false;
};

std::span<const std::byte> bytes_of(const void* data, size_t size) {
  return {static_cast<const std::byte*>(data), size};
}

void check_output(const fs::path& input, const fs::path& output) {
  std::error_code error;
  const fs::file_type type = file_type_of(output);
  if (type != fs::file_type::not_found) {
    if (type != fs::file_type::directory) {
      throw std::invalid_argument(output.string() +
                                  ": exists and is not a folder; give a new "
                                  "folder name for the converted model");
    }
    if (fs::equivalent(input, output, error)) {
      throw std::invalid_argument(output.string() + ": is the input folder; give a new folder");
    }
    if (!fs::is_empty(output, error)) {
      throw std::invalid_argument(output.string() +
                                  ": exists and is not empty; tinyenc convert writes a new "
                                  "folder and never replaces one");
    }
  }
  // An output inside the input would copy itself.
  const fs::path absolute_input = fs::weakly_canonical(input, error);
  const fs::path absolute_output = fs::weakly_canonical(fs::absolute(output), error);
  const auto [mismatch, rest] = std::mismatch(absolute_input.begin(), absolute_input.end(),
                                              absolute_output.begin(), absolute_output.end());
  if (mismatch == absolute_input.end()) {
    throw std::invalid_argument(output.string() + ": is inside the input folder " + input.string() +
                                "; give a folder elsewhere");
  }
}

// Every file of `input` but its model.safetensors, into `staging`, folders kept.
void copy_other_files(const fs::path& input, const fs::path& staging) {
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(input)) {
    const fs::path relative = fs::relative(entry.path(), input);
    if (relative == "model.safetensors") continue;
    if (entry.is_directory()) {
      fs::create_directories(staging / relative);
    } else if (entry.is_regular_file()) {
      fs::create_directories((staging / relative).parent_path());
      fs::copy_file(entry.path(), staging / relative);
    }
  }
}

}  // namespace

ConversionSummary convert_model(const fs::path& input, const fs::path& output, ComputeDtype dtype) {
  if (dtype == ComputeDtype::kF32) {
    throw std::invalid_argument(
        "convert --dtype f32: the folder is already float; convert "
        "writes int8 or bf16");
  }
  // Loaded first: a folder that does not load is not converted, and the loader says which
  // tensors are Linear weights and embeddings.
  const LoadedModel model = load_user_model(input, "f32");
  if (model.stored_dtype) {
    throw std::invalid_argument(input.string() + ": already converted to " +
                                std::string(compute_dtype_name(*model.stored_dtype)) +
                                " (model.safetensors __metadata__ tinyenc_dtype); convert the "
                                "float original instead");
  }
  check_output(input, output);

  const fs::path weights_path = input / "model.safetensors";
  SafetensorsFile file(weights_path);
  std::set<std::string> not_used(model.unused_tensors.begin(), model.unused_tensors.end());
  not_used.insert(model.ignored_tensors.begin(), model.ignored_tensors.end());

  ConversionSummary summary;
  std::vector<TensorToWrite> tensors;
  for (const TensorInfo& info : file.tensors()) {
    const auto role = model.tensor_roles.find(info.name);
    if (role != model.tensor_roles.end() && role->second != TensorRole::kOther) {
      ++summary.converted_tensors;
      if (dtype == ComputeDtype::kInt8) {
        const SafetensorsFile::Quantized& quantized = file.quantized_s8(info);
        tensors.push_back({info.name, DType::kI8, info.shape,
                           bytes_of(quantized.values.data(), quantized.values.size())});
        tensors.push_back({info.name + std::string(kScaleSuffix),
                           DType::kF32,
                           {static_cast<int64_t>(quantized.scales.size())},
                           bytes_of(quantized.scales.data(), quantized.scales.size() * 4)});
      } else {
        const std::vector<uint16_t>& bits = file.rounded_bf16(info);
        tensors.push_back(
            {info.name, DType::kBF16, info.shape, bytes_of(bits.data(), 2 * bits.size())});
      }
    } else if (not_used.count(info.name)) {
      tensors.push_back({info.name, info.dtype, info.shape, file.data(info)});
    } else {
      tensors.push_back({info.name, DType::kF32, info.shape,
                         bytes_of(file.float32(info), info.elements * sizeof(float))});
    }
  }
  std::map<std::string, std::string> metadata = file.metadata();
  metadata["tinyenc_dtype"] = std::string(compute_dtype_name(dtype));

  StagingFolder staging(output);
  copy_other_files(input, staging.path());
  write_safetensors(staging.path() / "model.safetensors", std::move(tensors), metadata);
  summary.input_bytes = fs::file_size(weights_path);
  summary.output_bytes = fs::file_size(staging.path() / "model.safetensors");
  staging.commit(output);
  return summary;
}

}  // namespace tinyenc
