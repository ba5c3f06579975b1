#include "models/convert_model.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include <cstring>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "engine/io/regular_file.h"
#include "models/model.h"
#include "models/pipeline.h"
#include "models/safetensors.h"
#include "models/safetensors_writer.h"
#include "models/temporaries.h"

namespace tinyenc {
namespace {

namespace fs = std::filesystem;

// The hidden folder the output is assembled in, ".<name>.tinyenc-tmp.<pid>" beside it; removed
// unless it was renamed into place, on a terminating signal too (models/temporaries.h).
class StagingFolder {
 public:
  explicit StagingFolder(const fs::path& output) : output_(output) {
    const fs::path parent = output.parent_path().empty() ? fs::path(".") : output.parent_path();
    // Appended piecewise: GCC 12 misreports "literal" + std::string&& (-Wrestrict, bug 105329).
    std::string prefix = ".";
    prefix += output.filename().string();
    prefix += ".tinyenc-tmp.";
    remove_dead_leftovers(parent, prefix);
    path_ = parent / (prefix + std::to_string(::getpid()));
    std::error_code error;
    fs::remove_all(path_, error);
    // Registered before it exists, so that no signal can come between and leave it behind.
    slot_ = register_temporary(path_);
    if (::mkdir(path_.c_str(), 0777) != 0) {
      const int reason = errno;
      release_temporary(slot_);
      throw std::invalid_argument(output.string() + ": cannot create it in folder " +
                                  parent.string() + " (" + std::strerror(reason) + ")");
    }
  }
  ~StagingFolder() {
    if (!committed_) {
      std::error_code error;
      fs::remove_all(path_, error);
    }
    release_temporary(slot_);
  }
  StagingFolder(const StagingFolder&) = delete;
  StagingFolder& operator=(const StagingFolder&) = delete;

  const fs::path& path() const { return path_; }
  void commit() {
    std::error_code error;
    fs::rename(path_, output_, error);  // replaces an empty folder, as rename(2) does
    if (error) throw std::runtime_error(output_.string() + ": cannot create: " + error.message());
    committed_ = true;
    release_temporary(slot_);
    slot_ = -1;
  }

 private:
  fs::path output_;
  fs::path path_;
  int slot_ = -1;
  bool committed_ = false;
};

std::span<const std::byte> bytes_of(const void* data, size_t size) {
  return {static_cast<const std::byte*>(data), size};
}

// `-o o/new/` (a trailing slash, as shell completion writes it) names the folder o/new.
fs::path without_trailing_slashes(const fs::path& output) {
  std::string text = output.string();
  while (text.size() > 1 && text.back() == '/') text.pop_back();
  return text;
}

void check_output(const fs::path& input, const fs::path& output) {
  if (output.empty()) {
    throw std::invalid_argument("-o: an empty folder name; give a new folder for the model");
  }
  std::error_code error;
  struct stat link_status;
  if (::lstat(output.c_str(), &link_status) == 0 && S_ISLNK(link_status.st_mode)) {
    // The rename at the end would replace the link itself, not fill the folder it names.
    throw std::invalid_argument(output.string() +
                                ": is a symbolic link; give a new folder name for the converted "
                                "model");
  }
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
  const fs::path parent = output.parent_path().empty() ? fs::path(".") : output.parent_path();
  if (file_type_of(parent) != fs::file_type::directory) {
    throw std::invalid_argument(output.string() + ": the folder " + parent.string() +
                                " does not exist; create it first");
  }
  if (::access(parent.c_str(), W_OK | X_OK) != 0) {
    throw std::invalid_argument(output.string() + ": cannot create it in folder " +
                                parent.string() + " (" + std::strerror(errno) + ")");
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

// The bytes of the regular file `from` into the new file `to`. Read errors name the input,
// write errors (a full disk) the output.
void copy_file_to(const fs::path& from, const fs::path& to) {
  const int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) throw std::runtime_error(from.string() + ": cannot read: " + std::strerror(errno));
  const int out = ::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (out < 0) {
    const int reason = errno;
    ::close(in);
    throw std::runtime_error(to.string() + ": cannot create: " + std::strerror(reason));
  }
  std::vector<char> buffer(1 << 20);
  std::string failure;
  for (;;) {
    const ssize_t got = ::read(in, buffer.data(), buffer.size());
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      failure = from.string() + ": cannot read: " + std::strerror(errno);
      break;
    }
    if (got == 0) break;
    for (ssize_t done = 0; done < got;) {
      const ssize_t written = ::write(out, buffer.data() + done, static_cast<size_t>(got - done));
      if (written < 0 && errno == EINTR) continue;
      if (written <= 0) {
        failure = to.string() + ": cannot write: " + std::strerror(written < 0 ? errno : EIO);
        break;
      }
      done += written;
    }
    if (!failure.empty()) break;
  }
  ::close(in);
  if (::close(out) != 0 && failure.empty()) {
    failure = to.string() + ": cannot write: " + std::strerror(errno);
  }
  if (!failure.empty()) throw std::runtime_error(failure);
}

// Each entry of the folder `from` into the folder `to` under its own name, as `cp -rL` copies:
// a symbolic link to a file becomes a copy of the file, one to a folder a copy of the folder.
// Every path created is `to` / a single name, so nothing is written outside `to`, wherever a
// link points. What is not copied (a dangling link, a socket, a link loop) is added to
// `not_copied` with the reason. `ancestors` holds the folders being copied, to stop link loops.
void copy_entries(const fs::path& from, const fs::path& to, bool top,
                  std::vector<std::pair<dev_t, ino_t>>& ancestors,
                  std::vector<std::string>& not_copied) {
  for (const fs::directory_entry& entry : fs::directory_iterator(from)) {
    const fs::path name = entry.path().filename();
    if (top && name == "model.safetensors") continue;
    struct stat status;
    if (::stat(entry.path().c_str(), &status) != 0) {
      not_copied.push_back(entry.path().string() + ": " + std::strerror(errno));
      continue;
    }
    if (S_ISREG(status.st_mode)) {
      copy_file_to(entry.path(), to / name);
    } else if (S_ISDIR(status.st_mode)) {
      const std::pair<dev_t, ino_t> identity{status.st_dev, status.st_ino};
      if (std::find(ancestors.begin(), ancestors.end(), identity) != ancestors.end()) {
        not_copied.push_back(entry.path().string() + ": a link back to a folder above it");
        continue;
      }
      if (::mkdir((to / name).c_str(), 0777) != 0) {
        throw std::runtime_error((to / name).string() + ": cannot create: " + std::strerror(errno));
      }
      ancestors.push_back(identity);
      copy_entries(entry.path(), to / name, false, ancestors, not_copied);
      ancestors.pop_back();
    } else {
      not_copied.push_back(entry.path().string() + ": not a file or folder");
    }
  }
}

}  // namespace

ConversionSummary convert_model(const fs::path& input, const fs::path& output_as_given,
                                ComputeDtype dtype) {
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
  const fs::path output = without_trailing_slashes(output_as_given);
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
      const DtypeTraits& traits = dtype_traits(dtype);
      const SafetensorsFile::Converted& converted = file.converted(info, dtype);
      tensors.push_back({info.name, *parse_dtype(traits.file_dtype), info.shape,
                         bytes_of(converted.values.data(), converted.values.size())});
      if (traits.channel_scales) {
        tensors.push_back({info.name + std::string(kScaleSuffix),
                           DType::kF32,
                           {static_cast<int64_t>(converted.scales.size())},
                           bytes_of(converted.scales.data(), converted.scales.size() * 4)});
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
  std::vector<std::pair<dev_t, ino_t>> ancestors;
  struct stat input_status;
  if (::stat(input.c_str(), &input_status) == 0)
    ancestors.push_back({input_status.st_dev, input_status.st_ino});
  try {
    copy_entries(input, staging.path(), true, ancestors, summary.not_copied);
    write_safetensors(staging.path() / "model.safetensors", std::move(tensors), metadata);
  } catch (const fs::filesystem_error&) {
    throw;  // names the input it could not read
  } catch (const std::runtime_error& e) {
    // A write error (a full disk) names the file as it will be called, not the staging folder.
    std::string message = e.what();
    const std::string staging_path = staging.path().string();
    if (message.starts_with(staging_path)) {
      message = output.string() + message.substr(staging_path.size());
    }
    throw std::runtime_error(message);
  }
  summary.input_bytes = fs::file_size(weights_path);
  summary.output_bytes = fs::file_size(staging.path() / "model.safetensors");
  staging.commit();
  return summary;
}

}  // namespace tinyenc
