#include "tokenizer/char_classes.h"

#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>
#include <unicode/ustring.h>
#include <unicode/utf16.h>

#include <stdexcept>

namespace tinyenc::unicode {
namespace {

UChar32 icu(char32_t c) { return static_cast<UChar32>(c); }

bool in_category(char32_t c, uint32_t mask) { return (U_GET_GC_MASK(icu(c)) & mask) != 0; }

const icu::Normalizer2& nfd() {
  static const icu::Normalizer2* instance = [] {
    UErrorCode status = U_ZERO_ERROR;
    const icu::Normalizer2* normalizer = icu::Normalizer2::getNFDInstance(status);
    if (U_FAILURE(status) || normalizer == nullptr) {
      throw std::runtime_error(std::string("ICU: cannot load the NFD data: ") +
                               u_errorName(status));
    }
    return normalizer;
  }();
  return *instance;
}

void append_utf16(const UChar* text, int32_t length, std::u32string& out) {
  for (int32_t i = 0; i < length;) {
    UChar32 c;
    U16_NEXT(text, i, length, c);
    out.push_back(static_cast<char32_t>(c));
  }
}

}  // namespace

bool is_bert_whitespace(char32_t c) {
  if (c < 0x80) return c == ' ' || c == '\t' || c == '\n' || c == '\r';
  return in_category(c, U_GC_ZS_MASK);
}

bool is_bert_control(char32_t c) {
  if (c == '\t' || c == '\n' || c == '\r') return false;
  if (c < 0x80) return c < 0x20 || c == 0x7F;
  return in_category(c, U_GC_C_MASK);
}

bool is_bert_punctuation(char32_t c) {
  if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) ||
      (c >= 123 && c <= 126)) {
    return true;
  }
  return c >= 0x80 && in_category(c, U_GC_P_MASK);
}

bool is_cjk_ideograph(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
         (c >= 0x20000 && c <= 0x2A6DF) || (c >= 0x2A700 && c <= 0x2B73F) ||
         (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B820 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

bool is_word_separator(char32_t c) {
  if (c < 0x80) return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1C && c <= 0x1F);
  return u_hasBinaryProperty(icu(c), UCHAR_WHITE_SPACE);
}

bool is_regex_word_char(char32_t c) {
  if (c < 0x80) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  }
  return u_hasBinaryProperty(icu(c), UCHAR_ALPHABETIC) ||
         in_category(c, U_GC_M_MASK | U_GC_ND_MASK | U_GC_PC_MASK) ||
         u_hasBinaryProperty(icu(c), UCHAR_JOIN_CONTROL);
}

// Below U+0300 (combining grave) there are no marks, and no combining classes.
constexpr char32_t kFirstMark = 0x300;

bool is_nonspacing_mark(char32_t c) { return c >= kFirstMark && in_category(c, U_GC_MN_MASK); }

bool is_cased(char32_t c) { return u_hasBinaryProperty(icu(c), UCHAR_CASED); }

bool is_case_ignorable(char32_t c) { return u_hasBinaryProperty(icu(c), UCHAR_CASE_IGNORABLE); }

void append_lowercase(char32_t c, std::u32string& out) {
  if (c < 0x80) {
    out.push_back(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c);
    return;
  }
  UChar source[2];
  int32_t source_length = 0;
  U16_APPEND_UNSAFE(source, source_length, icu(c));  // c is a scalar value: at most 2 units
  // A full lower-case mapping is at most three code points (SpecialCasing.txt).
  UChar lowered[8];
  UErrorCode status = U_ZERO_ERROR;
  const int32_t length = u_strToLower(lowered, 8, source, source_length, "", &status);
  if (U_FAILURE(status)) {
    out.push_back(c);
    return;
  }
  append_utf16(lowered, length, out);
}

void append_canonical_decomposition(char32_t c, std::u32string& out) {
  if (c < 0xC0) {  // nothing below U+00C0 decomposes canonically
    out.push_back(c);
    return;
  }
  icu::UnicodeString decomposition;
  if (!nfd().getDecomposition(icu(c), decomposition)) {
    out.push_back(c);
    return;
  }
  append_utf16(decomposition.getBuffer(), decomposition.length(), out);
}

uint8_t combining_class(char32_t c) { return c < kFirstMark ? 0 : u_getCombiningClass(icu(c)); }

}  // namespace tinyenc::unicode
