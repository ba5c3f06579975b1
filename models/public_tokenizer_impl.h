// What stands behind a tinyenc::Tokenizer (<tinyenc/tokenizer.h>): one of the library's own
// tokenizers (tokenizer/tokenizer.h), owned or borrowed from a model's pipeline. Private: for
// models/public_*.cc and for code that holds a library tokenizer and hands it to code written
// against the public one.
#pragma once

#include <tinyenc/tokenizer.h>

#include <memory>

#include "tokenizer/tokenizer.h"

namespace tinyenc {

struct Tokenizer::Impl {
  std::unique_ptr<const SubwordTokenizer> owned;  // null when borrowed
  const SubwordTokenizer* tokenizer = nullptr;    // owned.get(), or the borrowed one
};

struct TokenizerAccess {
  // A Tokenizer that owns `tokenizer`.
  static Tokenizer owning(std::unique_ptr<const SubwordTokenizer> tokenizer);
  // A Tokenizer that uses `tokenizer` without owning it: valid while `tokenizer` lives.
  static Tokenizer borrowing(const SubwordTokenizer& tokenizer);
  static const SubwordTokenizer& impl(const Tokenizer& tokenizer) {
    return *tokenizer.impl_->tokenizer;
  }
};

}  // namespace tinyenc
