// Reading tokenizer files and saying what is wrong with them. A missing, unreadable or empty file
// is bad input, not a bug: std::invalid_argument with one line that names the file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace tinyenc {

// The largest tokenizer file read: real ones (a multilingual tokenizer.json, a sentencepiece
// model) are tens of megabytes.
inline constexpr uint64_t kMaxTokenizerFileBytes = uint64_t{1} << 30;

// The bytes of a tokenizer file, which must be a non-empty regular file (see
// engine/io/regular_file.h).
std::string read_tokenizer_file(const std::filesystem::path& path);

}  // namespace tinyenc
