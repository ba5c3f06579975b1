// The names position_encoding_config.cc and config.cc still use for tokenizer/json_field.h, the
// one JSON reader. Kept only while the position-encoding validation in those files moves to
// engine/pe, so that the two changes do not collide; new code includes tokenizer/json_field.h.
#pragma once

#include <string>
#include <string_view>

#include "tokenizer/json_field.h"
#include "tokenizer/tokenizer_file.h"

namespace tinyenc {

using JsonFields = JsonField;

inline std::string quote_text(std::string_view text) { return in_quotes(text); }

}  // namespace tinyenc
