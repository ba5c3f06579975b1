// Reading tokenizer files and saying what is wrong with them. A missing, unreadable or empty file
// is bad input, not a bug: std::invalid_argument with one line that names the file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace tinyenc {

// The largest tokenizer file read: real ones (a multilingual tokenizer.json, a sentencepiece
// model) are tens of megabytes.
inline constexpr uint64_t kMaxTokenizerFileBytes = uint64_t{1} << 30;

// The bytes of a tokenizer file, which must be a non-empty regular file (see regular_file.h).
std::string read_tokenizer_file(const std::filesystem::path& path);

// `text` with control characters escaped (\n, \t, \x01), so that an error message quoting it
// stays one line.
std::string escape_control_characters(std::string_view text);

// `text` in single quotes for an error message: control characters escaped (\n, \x01) so the
// message stays one line, and cut after about 60 bytes (at a character boundary).
std::string in_quotes(std::string_view text);

}  // namespace tinyenc
