#include "tokenizer/tokenizer.h"

#include <stdexcept>
#include <string>

#include "engine/io/utf8.h"

namespace tinyenc {
namespace {

void check_utf8(std::string_view text, const char* which) {
  if (const auto offset = find_invalid_utf8(text)) {
    throw std::invalid_argument(std::string(which) + "invalid UTF-8 at byte " +
                                std::to_string(*offset));
  }
}

}  // namespace

SubwordTokenizer::SubwordTokenizer(SpecialTokenIds special_ids, SpecialTemplate special_template)
    : special_ids_(special_ids), template_(std::move(special_template)) {
  check_template(template_);
}

void SubwordTokenizer::set_special_template(SpecialTemplate special_template) {
  check_template(special_template);
  template_ = std::move(special_template);
}

Encoding SubwordTokenizer::encode(std::string_view text, bool add_special_tokens) const {
  check_utf8(text, "");
  return apply_template(template_, encode_text(text), nullptr, add_special_tokens);
}

Encoding SubwordTokenizer::encode_pair(std::string_view first, std::string_view second,
                                       bool add_special_tokens) const {
  check_utf8(first, "first text: ");
  check_utf8(second, "second text: ");
  const Encoding second_encoding = encode_text(second);
  return apply_template(template_, encode_text(first), &second_encoding, add_special_tokens);
}

void SubwordTokenizer::check_id(int32_t id) const {
  if (id < 0 || id >= vocab_size()) {
    throw std::out_of_range("token id " + std::to_string(id) + " is outside the vocabulary (0.." +
                            std::to_string(vocab_size() - 1) + ")");
  }
}

}  // namespace tinyenc
