// Model folders that hold something hostile where a file should be, end to end through the real
// program: a FIFO, a device, a folder, a loop of symbolic links, a NaN weight, a repeated JSON
// key. Each must end in exit code 2 and one line "tinyenc: error: <file>: <what>" — never a
// hang, a raw std::filesystem message, or NaN outputs.
//
// The program runs under timeout(1): should a FIFO ever be opened for reading again, the test
// fails after seconds instead of hanging the suite.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/run_program.h"
#include "tests/support/temp_folder.h"
#include "tests/support/test_data.h"

namespace tinyenc {
namespace {

namespace fs = std::filesystem;
using testing::count_lines;
using testing::ProgramResult;
using testing::shell_quote;

// A copy of a shipped model, so that a test can replace any of its files.
class HostileFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(model_);
    const fs::path shipped = testing::pretrained_model("order-rope");
    for (const char* name : {"config.json", "model.safetensors", "tokenizer.model"}) {
      fs::copy_file(shipped / name, model_ / name);
    }
  }

  // `name` in the model folder replaced by a FIFO that nobody ever writes to.
  fs::path make_fifo(const std::string& name) {
    const fs::path path = model_ / name;
    fs::remove(path);
    EXPECT_EQ(::mkfifo(path.c_str(), 0600), 0) << path;
    return path;
  }
  fs::path replace_by_link(const std::string& name, const fs::path& target) {
    const fs::path path = model_ / name;
    fs::remove(path);
    fs::create_symlink(target, path);
    return path;
  }

  std::string model() const { return shell_quote(model_); }

  testing::TempFolder temp_{"tinyenc_hostile_files"};
  const fs::path& root_ = temp_.path();
  const fs::path model_ = root_ / "order-rope";
};

ProgramResult run(const std::string& arguments) {
  return testing::run_program("timeout -k 5 30 " + shell_quote(TINYENC_BINARY), arguments);
}

// Exit code 2 and one error line that names `file` and says `what`.
void expect_refused(const std::string& arguments, const fs::path& file, const std::string& what) {
  const ProgramResult result = run(arguments);
  EXPECT_NE(result.exit_code, 124) << arguments << ": timed out";
  EXPECT_EQ(result.exit_code, 2) << arguments << ": " << result.err;
  EXPECT_EQ(count_lines(result.err), 1) << arguments << ": " << result.err;
  EXPECT_EQ(result.err, "tinyenc: error: " + file.string() + ": " + what + "\n") << arguments;
  EXPECT_EQ(result.out, "") << arguments;
}

TEST_F(HostileFiles, FifoAsConfigJson) {
  const fs::path fifo = make_fifo("config.json");
  expect_refused("run -m " + model() + " 我打你", fifo, "not a regular file");
  expect_refused("info -m " + model(), fifo, "not a regular file");
}

TEST_F(HostileFiles, FifoAsWeights) {
  const fs::path fifo = make_fifo("model.safetensors");
  expect_refused("run -m " + model() + " 我打你", fifo, "not a regular file");
  expect_refused("info -m " + model(), fifo, "not a regular file");
}

TEST_F(HostileFiles, FifoAsTokenizer) {
  const fs::path fifo = make_fifo("tokenizer.model");
  expect_refused("run -m " + model() + " 我打你", fifo, "not a regular file");
  expect_refused("tokenize -m " + model() + " 我打你", fifo, "not a regular file");
  expect_refused("tokenize --tokenizer " + shell_quote(fifo) + " 我打你", fifo,
                 "not a regular file");
}

TEST_F(HostileFiles, FifoAsTokenizerConfig) {
  const fs::path vocab = model_ / "vocab.txt";
  std::ofstream(vocab) << "[PAD]\n[UNK]\n[CLS]\n[SEP]\nhello\n";
  const fs::path fifo = make_fifo("tokenizer_config.json");
  expect_refused("tokenize --tokenizer " + shell_quote(vocab) + " hello", fifo,
                 "not a regular file");
}

TEST_F(HostileFiles, DeviceAndFolderAsConfigJson) {
  // /dev/null stands for every device: /dev/zero would fill the memory, should the check go.
  const fs::path device = replace_by_link("config.json", "/dev/null");
  expect_refused("run -m " + model() + " 我打你", device, "not a regular file");
  fs::remove(device);
  fs::create_directory(device);
  expect_refused("run -m " + model() + " 我打你", device, "is a folder, not a file");
}

TEST_F(HostileFiles, SymbolicLinkLoops) {
  const fs::path loop = root_ / "loop";
  fs::create_symlink("loop", loop);
  expect_refused("run -m " + shell_quote(loop) + " 我打你", loop,
                 "Too many levels of symbolic links");
  expect_refused("tokenize -m " + shell_quote(loop) + " 我打你", loop,
                 "Too many levels of symbolic links");
  const fs::path config = replace_by_link("config.json", "config.json");
  expect_refused("run -m " + model() + " 我打你", config,
                 "cannot open: Too many levels of symbolic links");
  expect_refused("info -m " + model(), config, "cannot open: Too many levels of symbolic links");
}

TEST_F(HostileFiles, NaNWeight) {
  // classifier.weight [labels, 64], element [1, 1] set to NaN: without the check, `run` would print
  // "label 我/I -nan" and succeed.
  const fs::path weights = model_ / "model.safetensors";
  std::vector<char> bytes = testing::read_bytes(weights);
  uint64_t header_length = 0;
  std::memcpy(&header_length, bytes.data(), sizeof header_length);
  const nlohmann::json header =
      nlohmann::json::parse(bytes.begin() + 8, bytes.begin() + 8 + header_length);
  const nlohmann::json& classifier = header.at("classifier.weight");
  ASSERT_EQ(classifier.at("dtype"), "F32");
  ASSERT_EQ(classifier.at("shape")[1], 64);
  const uint64_t offset = 8 + header_length + classifier.at("data_offsets")[0].get<uint64_t>();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::memcpy(bytes.data() + offset + 65 * sizeof(float), &nan, sizeof nan);
  std::ofstream(weights, std::ios::binary | std::ios::trunc)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  expect_refused("run -m " + model() + " 我打你", weights,
                 "tensor 'classifier.weight': element [1, 1] (index 65) is NaN; weights must be "
                 "finite");
}

TEST_F(HostileFiles, RepeatedKeyInConfigJson) {
  const fs::path config = model_ / "config.json";
  std::string text = testing::read_text(config);
  ASSERT_EQ(text.rfind("{", 0), 0u);
  text.insert(1, "\"hidden_size\": 32,");  // the file says 64 further down
  std::ofstream(config, std::ios::binary | std::ios::trunc) << text;
  expect_refused("run -m " + model() + " 我打你", config,
                 "key 'hidden_size' appears more than once");
  expect_refused("info -m " + model(), config, "key 'hidden_size' appears more than once");
}

}  // namespace
}  // namespace tinyenc
