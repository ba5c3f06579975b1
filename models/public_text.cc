// <tinyenc/text.h>. The helpers that cannot fail are the library's own functions: the public
// header declares them again, word for word, so a program calls the very code the tokenizers
// use. The checks below stop the build when a public declaration drifts from the library's (a
// different parameter makes two overloads, whose address decltype cannot take). The helper that
// can fail turns the library's exception into tinyenc::Error here.
#include <tinyenc/text.h>

#include <type_traits>

#include "models/public_model_impl.h"
#include "tokenizer/char_classes.h"
#include "engine/io/quoted.h"
#include "engine/io/utf8.h"

namespace tinyenc {

static_assert(
    std::is_same_v<decltype(&escape_control_characters), std::string (*)(std::string_view)>);
static_assert(std::is_same_v<decltype(&in_quotes), std::string (*)(std::string_view)>);
static_assert(
    std::is_same_v<decltype(&find_invalid_utf8), std::optional<size_t> (*)(std::string_view)>);
static_assert(std::is_same_v<decltype(&append_utf8), void (*)(char32_t, std::string&)>);
static_assert(std::is_same_v<decltype(&unicode::is_cjk_ideograph), bool (*)(char32_t)>);
static_assert(std::is_same_v<decltype(&unicode::is_word_separator), bool (*)(char32_t)>);

std::u32string code_points(std::string_view text) {
  return guarded([&] { return decode_utf8(text); });
}

}  // namespace tinyenc
