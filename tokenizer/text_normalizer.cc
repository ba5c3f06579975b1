#include "tokenizer/text_normalizer.h"

#include <algorithm>
#include <functional>

#include "tokenizer/char_classes.h"

namespace tinyenc {
namespace {

constexpr char32_t kCapitalSigma = 0x03A3;
constexpr char32_t kSmallSigma = 0x03C3;
constexpr char32_t kFinalSigma = 0x03C2;
constexpr char32_t kReplacementCharacter = 0xFFFD;

bool is_verbatim(const AlignedText& text, size_t first, size_t last,
                 const std::vector<std::string>& verbatim_words) {
  if (verbatim_words.empty()) return false;
  const std::string word = utf8_of(text, first, last);
  return std::find(verbatim_words.begin(), verbatim_words.end(), word) != verbatim_words.end();
}

// Unicode's Final_Sigma condition (Unicode 15, table 3-17), as Python's str.lower() applies it:
// a cased letter before the sigma and none after it, skipping case-ignorable characters.
bool is_final_sigma(const AlignedText& text, size_t first, size_t position, size_t last) {
  size_t before = position;
  while (before > first && unicode::is_case_ignorable(text[before - 1].code_point)) --before;
  if (before == first || !unicode::is_cased(text[before - 1].code_point)) return false;
  size_t after = position + 1;
  while (after < last && unicode::is_case_ignorable(text[after].code_point)) ++after;
  return after == last || !unicode::is_cased(text[after].code_point);
}

using WordTransform =
    std::function<void(const AlignedText& text, size_t first, size_t last, AlignedText& out)>;

// Applies `transform` to each whitespace-separated word that is not verbatim; separators and
// verbatim words are copied as they are.
void transform_words(AlignedText& text, const std::vector<std::string>& verbatim_words,
                     const WordTransform& transform) {
  AlignedText out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    if (unicode::is_word_separator(text[i].code_point)) {
      out.push_back(text[i++]);
      continue;
    }
    size_t last = i;
    while (last < text.size() && !unicode::is_word_separator(text[last].code_point)) ++last;
    if (is_verbatim(text, i, last, verbatim_words)) {
      out.insert(out.end(), text.begin() + static_cast<ptrdiff_t>(i),
                 text.begin() + static_cast<ptrdiff_t>(last));
    } else {
      transform(text, i, last, out);
    }
    i = last;
  }
  text = std::move(out);
}

void lowercase_word(const AlignedText& text, size_t first, size_t last, AlignedText& out) {
  std::u32string lowered;
  for (size_t i = first; i < last; ++i) {
    const AlignedChar& c = text[i];
    if (c.code_point == kCapitalSigma) {
      out.push_back({is_final_sigma(text, first, i, last) ? kFinalSigma : kSmallSigma, c.source});
      continue;
    }
    lowered.clear();
    unicode::append_lowercase(c.code_point, lowered);
    for (char32_t l : lowered) out.push_back({l, c.source});
  }
}

void decompose_word(const AlignedText& text, size_t first, size_t last, AlignedText& out) {
  const size_t start = out.size();
  std::u32string decomposed;
  for (size_t i = first; i < last; ++i) {
    decomposed.clear();
    unicode::append_canonical_decomposition(text[i].code_point, decomposed);
    for (char32_t d : decomposed) out.push_back({d, text[i].source});
  }
  // Canonical ordering: each run of marks (combining class > 0) sorted stably by class.
  const auto ccc = [](const AlignedChar& c) { return unicode::combining_class(c.code_point); };
  for (size_t i = start; i < out.size();) {
    if (ccc(out[i]) == 0) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < out.size() && ccc(out[end]) != 0) ++end;
    std::stable_sort(out.begin() + static_cast<ptrdiff_t>(i),
                     out.begin() + static_cast<ptrdiff_t>(end),
                     [&](const AlignedChar& a, const AlignedChar& b) { return ccc(a) < ccc(b); });
    i = end;
  }
}

void strip_accents_word(const AlignedText& text, size_t first, size_t last, AlignedText& out) {
  for (size_t i = first; i < last; ++i) {
    if (!unicode::is_nonspacing_mark(text[i].code_point)) out.push_back(text[i]);
  }
}

void clean_text(AlignedText& text) {
  AlignedText out;
  out.reserve(text.size());
  for (const AlignedChar& c : text) {
    if (c.code_point == 0 || c.code_point == kReplacementCharacter ||
        unicode::is_bert_control(c.code_point)) {
      continue;
    }
    out.push_back({unicode::is_bert_whitespace(c.code_point) ? U' ' : c.code_point, c.source});
  }
  text = std::move(out);
}

void space_cjk(AlignedText& text) {
  AlignedText out;
  out.reserve(text.size());
  for (const AlignedChar& c : text) {
    if (!unicode::is_cjk_ideograph(c.code_point)) {
      out.push_back(c);
      continue;
    }
    const TokenSpan at_start{c.source.begin, c.source.begin};
    out.push_back({U' ', at_start});
    out.push_back(c);
    out.push_back({U' ', {c.source.end, c.source.end}});
  }
  text = std::move(out);
}

}  // namespace

std::vector<NormalizeStep> bert_normalization(bool lower_case, std::optional<bool> strip_accents,
                                              bool split_cjk) {
  std::vector<NormalizeStep> steps{NormalizeStep::kCleanText};
  if (split_cjk) steps.push_back(NormalizeStep::kSpaceCjk);
  if (lower_case) steps.push_back(NormalizeStep::kLowercase);
  if (strip_accents.value_or(lower_case)) {
    steps.push_back(NormalizeStep::kDecompose);
    steps.push_back(NormalizeStep::kStripAccents);
  }
  return steps;
}

void normalize_text(std::span<const NormalizeStep> steps,
                    const std::vector<std::string>& verbatim_words, AlignedText& text) {
  for (NormalizeStep step : steps) {
    switch (step) {
      case NormalizeStep::kCleanText:
        clean_text(text);
        break;
      case NormalizeStep::kSpaceCjk:
        space_cjk(text);
        break;
      case NormalizeStep::kLowercase:
        transform_words(text, verbatim_words, lowercase_word);
        break;
      case NormalizeStep::kDecompose:
        transform_words(text, verbatim_words, decompose_word);
        break;
      case NormalizeStep::kStripAccents:
        transform_words(text, verbatim_words, strip_accents_word);
        break;
    }
  }
}

std::string_view step_name(NormalizeStep step) {
  switch (step) {
    case NormalizeStep::kCleanText:
      return "clean";
    case NormalizeStep::kSpaceCjk:
      return "space CJK";
    case NormalizeStep::kLowercase:
      return "lower-case";
    case NormalizeStep::kDecompose:
      return "NFD";
    case NormalizeStep::kStripAccents:
      return "strip accents";
  }
  return "?";
}

}  // namespace tinyenc
