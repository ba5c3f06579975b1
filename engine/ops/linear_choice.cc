#include "engine/ops/linear_choice.h"

#include <bit>
#include <cstdlib>
#include <mutex>
#include <oneapi/dnnl/dnnl.hpp>
#include <stdexcept>

namespace tinyenc::ops {
namespace {

std::mutex book_mutex;
LinearChoiceBook& book() {
  static LinearChoiceBook installed;
  return installed;
}

}  // namespace

std::string_view linear_primitive_name(LinearPrimitive primitive) {
  switch (primitive) {
    case LinearPrimitive::kConvolution:
      return "convolution";
    case LinearPrimitive::kTiles:
      return "tiles";
    case LinearPrimitive::kMatmul:
      break;
  }
  return "matmul";
}

std::optional<LinearPrimitive> parse_linear_primitive(std::string_view name) {
  if (name == "convolution") return LinearPrimitive::kConvolution;
  if (name == "matmul") return LinearPrimitive::kMatmul;
  if (name == "tiles") return LinearPrimitive::kTiles;
  return std::nullopt;
}

std::optional<LinearChoiceMode> parse_linear_choice_mode(std::string_view name) {
  if (name == "measure") return LinearChoiceMode::kMeasure;
  if (name == "rule") return LinearChoiceMode::kRule;
  if (name == "convolution") return LinearChoiceMode::kConvolution;
  if (name == "matmul") return LinearChoiceMode::kMatmul;
  if (name == "tiles") return LinearChoiceMode::kTiles;
  return std::nullopt;
}

LinearChoiceMode linear_choice_mode() {
  static const LinearChoiceMode mode = [] {
    const char* setting = std::getenv("TINYENC_LINEAR");
    if (setting == nullptr || *setting == '\0') return LinearChoiceMode::kMeasure;
    const auto parsed = parse_linear_choice_mode(setting);
    if (!parsed) {
      throw std::runtime_error(
          std::string(
              "TINYENC_LINEAR: expected measure, rule, convolution, matmul or tiles, got '") +
          setting + "'");
    }
    return *parsed;
  }();
  return mode;
}

int64_t measured_rows(int64_t rows) {
  if (rows >= kMaxMeasuredRows) return kMaxMeasuredRows;
  return static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(std::max<int64_t>(rows, 1))));
}

std::string linear_choice_key(ComputeDtype dtype, int64_t in, int64_t out, int64_t rows,
                              int threads, const std::string& trial) {
  const dnnl_version_t* version = dnnl_version();
  return "onednn " + std::to_string(version->major) + "." + std::to_string(version->minor) + "." +
         std::to_string(version->patch) + " isa " +
         std::to_string(static_cast<unsigned>(dnnl::get_effective_cpu_isa())) + " " +
         std::string(compute_dtype_name(dtype)) + " " + std::to_string(in) + "x" +
         std::to_string(out) + " rows " + std::to_string(measured_rows(rows)) + " threads " +
         std::to_string(threads) + (trial.empty() ? "" : " " + trial);
}

void set_linear_choice_book(LinearChoiceBook installed) {
  const std::lock_guard<std::mutex> lock(book_mutex);
  book() = std::move(installed);
}

std::optional<LinearPrimitive> recorded_linear_choice(
    const std::string& key, const std::function<LinearPrimitive()>& measure) {
  LinearChoiceBook installed;
  {
    const std::lock_guard<std::mutex> lock(book_mutex);
    installed = book();
  }
  if (!installed) return std::nullopt;
  const std::optional<std::string> recorded =
      installed(key, [&] { return std::string(linear_primitive_name(measure())); });
  if (!recorded) return std::nullopt;
  return parse_linear_primitive(*recorded);
}

}  // namespace tinyenc::ops
