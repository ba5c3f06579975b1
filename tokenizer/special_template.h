// Where special tokens go around one text or a pair of texts (Hugging Face calls this the
// post-processor's template): BERT `[CLS] a [SEP] b [SEP]`, RoBERTa `<s> a </s></s> b </s>`,
// T5 `a </s> b </s>`, or nothing at all. The template also assigns token types: BERT's second
// segment is type 1, which is how its token-type embedding tells the two texts apart.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tokenizer/encoding.h"

namespace tinyenc {

struct TemplateItem {
  enum class Kind { kFirstText, kSecondText, kSpecialToken };
  Kind kind = Kind::kFirstText;
  std::string token;  // kSpecialToken only
  int32_t id = -1;    // kSpecialToken only
  int32_t type_id = 0;
};

struct SpecialTemplate {
  std::vector<TemplateItem> single;  // must hold kFirstText once
  std::vector<TemplateItem> pair;    // must hold kFirstText and kSecondText once each
};

// `a` / `a b` (the second text with type 1, as BERT would mark it).
SpecialTemplate plain_template();
// BERT: `[CLS] a [SEP]` / `[CLS] a [SEP] b [SEP]`, the second segment and its [SEP] of type 1.
SpecialTemplate bert_template(const std::string& cls, int32_t cls_id, const std::string& sep,
                              int32_t sep_id);
// RoBERTa and sentencepiece models with a bos piece: `<s> a </s>` / `<s> a </s></s> b </s>`,
// all of type 0 (RoBERTa has a single token type).
SpecialTemplate roberta_template(const std::string& bos, int32_t bos_id, const std::string& eos,
                                 int32_t eos_id);
// T5 (eos but no bos): `a </s>` / `a </s> b </s>`, all of type 0.
SpecialTemplate eos_template(const std::string& eos, int32_t eos_id);

// Throws std::invalid_argument unless the single template holds the first text once and the
// pair template each text once.
void check_template(const SpecialTemplate& special_template);

// Joins the encodings of the texts as the template says. Without special tokens the texts keep
// their place and token types, so `--no-special` pairs still carry segment ids.
Encoding apply_template(const SpecialTemplate& special_template, const Encoding& first,
                        const Encoding* second, bool add_special_tokens);

// "[CLS] $A [SEP]" (and the pair form when `pair`): the template as one readable line.
std::string describe_template(const SpecialTemplate& special_template, bool pair);

}  // namespace tinyenc
