#include "tokenizer/vocab_txt.h"

namespace tinyenc {

std::unique_ptr<WordPieceTokenizer> wordpiece_from_vocab_txt(std::string_view contents,
                                                             const std::string& source,
                                                             const TokenizerConfig& config) {
  WordPieceVocab vocab = WordPieceVocab::from_lines(contents, source);
  const SpecialTokenNames& names = config.special_names;

  WordPieceOptions options;
  options.normalize = bert_normalization(config.do_lower_case.value_or(true), config.strip_accents,
                                         config.tokenize_chinese_chars.value_or(true));
  options.split = WordSplit::kBert;
  options.never_split = config.never_split;
  options.unk_token = names.unk;
  for (const std::string& name : {names.pad, names.unk, names.cls, names.sep, names.mask}) {
    if (vocab.find(name)) options.added_tokens.push_back(name);
  }

  const SpecialTokenIds ids = find_special_ids(vocab, names);
  SpecialTemplate special_template = plain_template();
  if (ids.cls && ids.sep) {
    special_template = bert_template(names.cls, *ids.cls, names.sep, *ids.sep);
  }
  return std::make_unique<WordPieceTokenizer>(std::move(vocab), std::move(options), ids,
                                              std::move(special_template), source);
}

}  // namespace tinyenc
