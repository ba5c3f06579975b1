// Where this machine's processes keep the Linear primitives they measured
// (engine/ops/linear_choice.h): one file, $TINYENC_CACHE_DIR/linear-choices.tsv, else under
// $XDG_CACHE_HOME/tinyenc, else ~/.cache/tinyenc. A line is "<CPU model>, <shape's key><TAB>
// convolution|matmul"; deleting the file makes the next process measure again. With none of the
// three variables set there is no book, and the fixed rule chooses.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace tinyenc {

std::optional<std::filesystem::path> linear_choice_book_path();

// What `tinyenc info` says of the choice: "measured once per shape, kept in <path>", or the
// rule, or what TINYENC_LINEAR forces.
std::string linear_choice_summary();

// Installs the book for the engine's Linear layers; once per process (later calls do nothing).
void install_linear_choice_book();

}  // namespace tinyenc
