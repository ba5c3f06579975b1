// A long text tokenized only as far as it will be used. A model keeps at most its maximum
// length of tokens, so a 64 MiB line need not be tokenized whole (sentencepiece's cost grows
// faster than the text on a repeated character, and its pieces take many times the text's
// bytes): a prefix window, grown geometrically, is tokenized until it holds more tokens than
// will be kept, or is the whole text. Time and memory follow what is kept, not the line.
#pragma once

#include <cstdint>
#include <string_view>

#include "tokenizer/encoding.h"
#include "tokenizer/tokenizer.h"

namespace tinyenc {

// The longest prefix of `text` at most `bytes` long that ends at a character boundary, and at
// whitespace when its second half holds some: tokens do not cross whitespace, so the prefix's
// tokens are the text's own up to the cut.
std::string_view text_prefix(std::string_view text, size_t bytes);

struct PrefixEncoding {
  Encoding encoding;    // of the prefix (special tokens added as for the whole text)
  bool whole = false;   // the prefix is the whole text
  bool enough = false;  // the prefix holds more than the tokens needed
};

// The longest prefix encode_prefix() tokenizes for `tokens_needed` tokens: 256 bytes a token,
// 64 KiB at least. Real text takes 2 to 8 bytes a token; only a run of characters the vocabulary
// does not know (one <unk>, however long) takes more, and sentencepiece merges such a run at a
// cost that grows with the square of its length.
size_t longest_prefix(int64_t tokens_needed);

// Tokenizes prefixes of `text` of 4 KiB, 16 KiB, ... until one has more than `tokens_needed`
// tokens of text (enough), is the whole text (whole), or is longest_prefix() long (neither).
// When enough, the encoding's first `tokens_needed` text tokens are those of the whole text's
// encoding.
PrefixEncoding encode_prefix(const SubwordTokenizer& tokenizer, std::string_view text,
                             int64_t tokens_needed);

}  // namespace tinyenc
