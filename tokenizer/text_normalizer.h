// The normalising half of BERT's basic tokenizer, as separate steps so that both BERT's own
// order (google-research/bert: clean, space CJK, then per word lower-case and strip accents) and
// the order a Hugging Face tokenizer.json spells out can be run. Every step keeps the byte
// offsets of the input (see aligned_text.h).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/aligned_text.h"

namespace tinyenc {

enum class NormalizeStep {
  kCleanText,     // drop NUL, U+FFFD and control/format characters; whitespace becomes ' '
  kSpaceCjk,      // put spaces around each CJK ideograph: Chinese has no spaces between words,
                  // and BERT's vocabulary holds the ideographs one by one
  kLowercase,     // full lower-case mapping (str.lower()): "İ" -> "i̇", word-final "Σ" -> "ς"
  kDecompose,     // canonical decomposition (NFD), so accents become separate marks
  kStripAccents,  // drop nonspacing marks (Mn): after kDecompose "é" has become "e"
};

// BERT's BasicTokenizer: clean, space CJK (when `split_cjk`), then when lower-casing: lower-case,
// decompose and strip accents. `strip_accents` overrides whether accents go (Hugging Face's
// strip_accents; by default they go exactly when lower-casing).
std::vector<NormalizeStep> bert_normalization(bool lower_case, std::optional<bool> strip_accents,
                                              bool split_cjk = true);

// Runs the steps in order. The steps that change letters (lower-case, decompose, strip accents)
// leave alone a whitespace-separated word equal to one of `verbatim_words` (BERT's never_split).
void normalize_text(std::span<const NormalizeStep> steps,
                    const std::vector<std::string>& verbatim_words, AlignedText& text);

std::string_view step_name(NormalizeStep step);

}  // namespace tinyenc
