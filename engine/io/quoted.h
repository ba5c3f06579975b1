// Quoting text from a file in a one-line error message: what the readers of files (JSON fields,
// vocabularies, tensor names) say about a value they refuse.
#pragma once

#include <string>
#include <string_view>

namespace tinyenc {

// `text` with control characters escaped (\n, \t, \x01), so that an error message quoting it
// stays one line.
std::string escape_control_characters(std::string_view text);

// `text` in single quotes for an error message: control characters escaped (\n, \x01) so the
// message stays one line, and cut after about 60 bytes (at a character boundary).
std::string in_quotes(std::string_view text);

}  // namespace tinyenc
