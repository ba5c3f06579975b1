#include "models/linear_choice_book.h"

#include <cstdlib>
#include <memory>
#include <string>

#include "engine/io/record_book.h"
#include "engine/isa.h"
#include "engine/ops/linear_choice.h"

namespace tinyenc {
namespace {

std::string variable(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

}  // namespace

std::optional<std::filesystem::path> linear_choice_book_path() {
  const std::filesystem::path file = "linear-choices.tsv";
  if (const std::string own = variable("TINYENC_CACHE_DIR"); !own.empty()) return own / file;
  if (const std::string xdg = variable("XDG_CACHE_HOME"); !xdg.empty()) {
    return std::filesystem::path(xdg) / "tinyenc" / file;
  }
  if (const std::string home = variable("HOME"); !home.empty()) {
    return std::filesystem::path(home) / ".cache" / "tinyenc" / file;
  }
  return std::nullopt;
}

std::string linear_choice_summary() {
  switch (ops::linear_choice_mode()) {
    case ops::LinearChoiceMode::kConvolution:
      return "1x1 convolution where oneDNN has one (TINYENC_LINEAR=convolution)";
    case ops::LinearChoiceMode::kMatmul:
      return "matmul (TINYENC_LINEAR=matmul)";
    case ops::LinearChoiceMode::kTiles:
      return "tinyenc's AMX tile product where it applies (TINYENC_LINEAR=tiles)";
    case ops::LinearChoiceMode::kRule:
      return "the fixed rule per dtype (TINYENC_LINEAR=rule)";
    case ops::LinearChoiceMode::kMeasure:
      break;
  }
  const std::optional<std::filesystem::path> path = linear_choice_book_path();
  if (!path) return "the fixed rule per dtype (no HOME, XDG_CACHE_HOME or TINYENC_CACHE_DIR)";
  return "convolution, matmul or (AMX int8/bf16) tiles, measured once per shape, kept in " +
         path->string();
}

void install_linear_choice_book() {
  ops::linear_choice_mode();  // a misspelt TINYENC_LINEAR is refused before any work
  static const bool installed = [] {
    const std::optional<std::filesystem::path> path = linear_choice_book_path();
    if (!path) return false;
    auto book = std::make_shared<RecordBook>(*path);
    const std::string machine = cpu_model_name() + ", ";
    ops::set_linear_choice_book(
        [book, machine](const std::string& key, const std::function<std::string()>& measure) {
          return book->find_or_add(machine + key, measure);
        });
    return true;
  }();
  (void)installed;
}

}  // namespace tinyenc
