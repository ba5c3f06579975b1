#include "tokenizer/tokenizer_json.h"

#include <cstdint>
#include <limits>

#include "engine/io/json_field.h"
#include "engine/io/quoted.h"

namespace tinyenc {
namespace {

constexpr int64_t kMaxId = std::numeric_limits<int32_t>::max();
// Sequences inside sequences: real files nest once; a hostile one must not exhaust the stack.
constexpr int kMaxNesting = 16;

bool flag_or(const JsonField& object, std::string_view key, bool fallback) {
  const auto field = object.find(key);
  return field ? field->as_bool() : fallback;
}

void read_normalizer(const JsonField& normalizer, std::vector<NormalizeStep>& steps, int depth) {
  if (depth > kMaxNesting) normalizer.fail("sequences nested too deeply");
  const std::string type = normalizer.at("type").as_string();
  if (type == "Sequence") {
    for (const JsonField& item : normalizer.at("normalizers").as_array()) {
      read_normalizer(item, steps, depth + 1);
    }
  } else if (type == "BertNormalizer") {
    // tokenizers' BertNormalizer::normalize: clean, CJK, strip accents, then lower-case.
    const bool lowercase = flag_or(normalizer, "lowercase", true);
    if (flag_or(normalizer, "clean_text", true)) steps.push_back(NormalizeStep::kCleanText);
    if (flag_or(normalizer, "handle_chinese_chars", true)) {
      steps.push_back(NormalizeStep::kSpaceCjk);
    }
    if (flag_or(normalizer, "strip_accents", lowercase)) {
      steps.push_back(NormalizeStep::kDecompose);
      steps.push_back(NormalizeStep::kStripAccents);
    }
    if (lowercase) steps.push_back(NormalizeStep::kLowercase);
  } else if (type == "Lowercase") {
    steps.push_back(NormalizeStep::kLowercase);
  } else if (type == "StripAccents") {
    steps.push_back(NormalizeStep::kStripAccents);
  } else if (type == "NFD") {
    steps.push_back(NormalizeStep::kDecompose);
  } else {
    normalizer.at("type").fail(
        "normalizer " + in_quotes(type) +
        " is not supported (BertNormalizer, Lowercase, StripAccents, NFD, Sequence)");
  }
}

WordSplit read_pre_tokenizer(const JsonField& pre_tokenizer, int depth) {
  if (depth > kMaxNesting) pre_tokenizer.fail("sequences nested too deeply");
  const JsonField type_field = pre_tokenizer.at("type");
  const std::string type = type_field.as_string();
  if (type == "BertPreTokenizer") return WordSplit::kBert;
  if (type == "Whitespace") return WordSplit::kRegexWords;
  if (type == "WhitespaceSplit") return WordSplit::kWhitespace;
  if (type == "Sequence") {
    const auto items = pre_tokenizer.at("pretokenizers").as_array();
    if (items.size() == 1) return read_pre_tokenizer(items[0], depth + 1);
  }
  type_field.fail("pre-tokenizer " + in_quotes(type) +
                  " is not supported (BertPreTokenizer, Whitespace, WhitespaceSplit)");
}

// ["[SEP]", 102] in BertProcessing and RobertaProcessing.
std::pair<std::string, int32_t> read_token_and_id(const JsonField& field) {
  return {field.element(0).as_string(), static_cast<int32_t>(field.element(1).as_int(0, kMaxId))};
}

std::vector<TemplateItem> read_template_items(const JsonField& items, const JsonField& specials,
                                              bool pair) {
  std::vector<TemplateItem> out;
  for (const JsonField& item : items.as_array()) {
    if (const auto sequence = item.find("Sequence")) {
      const JsonField id = sequence->at("id");
      const std::string which = id.as_string();
      if (which != "A" && (which != "B" || !pair)) {
        id.fail("expected \"A\"" + std::string(pair ? " or \"B\"" : ""));
      }
      TemplateItem text;
      text.kind = which == "A" ? TemplateItem::Kind::kFirstText : TemplateItem::Kind::kSecondText;
      text.type_id = static_cast<int32_t>(sequence->at("type_id").as_int(0, kMaxId));
      out.push_back(text);
    } else if (const auto special = item.find("SpecialToken")) {
      const std::string name = special->at("id").as_string();
      const auto definition = specials.find(name);
      if (!definition) {
        special->at("id").fail(in_quotes(name) + " is not in post_processor.special_tokens");
      }
      const auto ids = definition->at("ids").as_array();
      const auto tokens = definition->at("tokens").as_array();
      if (ids.size() != tokens.size()) definition->fail("ids and tokens differ in length");
      const auto type_id = static_cast<int32_t>(special->at("type_id").as_int(0, kMaxId));
      for (size_t i = 0; i < ids.size(); ++i) {
        out.push_back({TemplateItem::Kind::kSpecialToken, tokens[i].as_string(),
                       static_cast<int32_t>(ids[i].as_int(0, kMaxId)), type_id});
      }
    } else {
      item.fail("expected {\"Sequence\": ...} or {\"SpecialToken\": ...}");
    }
  }
  return out;
}

SpecialTemplate read_post_processor(const JsonField& post_processor, SpecialTokenIds& ids) {
  const JsonField type_field = post_processor.at("type");
  const std::string type = type_field.as_string();
  if (type == "TemplateProcessing") {
    const JsonField specials = post_processor.at("special_tokens");
    SpecialTemplate special_template{
        read_template_items(post_processor.at("single"), specials, false),
        read_template_items(post_processor.at("pair"), specials, true)};
    try {
      check_template(special_template);
    } catch (const std::invalid_argument& error) {
      post_processor.fail(error.what());
    }
    return special_template;
  }
  if (type == "BertProcessing" || type == "RobertaProcessing") {
    const auto [cls, cls_id] = read_token_and_id(post_processor.at("cls"));
    const auto [sep, sep_id] = read_token_and_id(post_processor.at("sep"));
    ids.cls = cls_id;
    ids.sep = sep_id;
    return type == "BertProcessing" ? bert_template(cls, cls_id, sep, sep_id)
                                    : roberta_template(cls, cls_id, sep, sep_id);
  }
  type_field.fail("post-processor " + in_quotes(type) +
                  " is not supported (TemplateProcessing, BertProcessing, RobertaProcessing)");
}

}  // namespace

std::unique_ptr<WordPieceTokenizer> wordpiece_from_tokenizer_json(std::string_view json,
                                                                  const std::string& source,
                                                                  const TokenizerConfig& config) {
  const nlohmann::json document = JsonField::parse(json, source);
  const JsonField root(document, source);
  if (!document.is_object()) root.fail("expected a JSON object");

  const JsonField model = root.at("model");
  const JsonField model_type = model.at("type");
  if (model_type.as_string() != "WordPiece") {
    model_type.fail("model " + in_quotes(model_type.as_string()) +
                    " is not supported: tinyenc reads WordPiece tokenizer.json files, and "
                    "sentencepiece models from tokenizer.model");
  }

  WordPieceVocab vocab;
  const auto add_token = [&](const std::string& token, const JsonField& id_field) {
    const auto id = static_cast<int32_t>(id_field.as_int(0, kMaxId));
    try {
      vocab.add(token, id);
    } catch (const std::invalid_argument& error) {
      id_field.fail(error.what());
    }
  };
  const JsonField vocab_field = model.at("vocab");
  for (const auto& [token, id] : vocab_field.as_object()) add_token(token, id);
  if (vocab.size() == 0) vocab_field.fail("empty vocabulary");

  WordPieceOptions options;
  options.normalize.clear();
  if (const auto unk = model.find("unk_token")) options.unk_token = unk->as_string();
  if (const auto prefix = model.find("continuing_subword_prefix")) {
    options.continuing_prefix = prefix->as_string();
  }
  if (const auto max_chars = model.find("max_input_chars_per_word")) {
    options.max_input_chars_per_word = static_cast<size_t>(max_chars->as_int(0, kMaxId));
  }
  if (const auto added = root.find("added_tokens")) {
    for (const JsonField& token : added->as_array()) {
      const std::string content = token.at("content").as_string();
      add_token(content, token.at("id"));
      options.added_tokens.push_back(content);
    }
  }
  if (const auto normalizer = root.find("normalizer")) {
    read_normalizer(*normalizer, options.normalize, 0);
  }
  options.split = WordSplit::kNone;
  if (const auto pre_tokenizer = root.find("pre_tokenizer")) {
    options.split = read_pre_tokenizer(*pre_tokenizer, 0);
  }

  SpecialTokenIds ids = find_special_ids(vocab, config.special_names);
  ids.unk = vocab.find(options.unk_token);
  SpecialTemplate special_template = plain_template();
  if (const auto post_processor = root.find("post_processor")) {
    special_template = read_post_processor(*post_processor, ids);
  }
  for (const auto* items : {&special_template.single, &special_template.pair}) {
    for (const TemplateItem& item : *items) {
      if (item.kind == TemplateItem::Kind::kSpecialToken && item.id >= vocab.size()) {
        root.at("post_processor")
            .fail("special token " + in_quotes(item.token) + " has id " + std::to_string(item.id) +
                  ", outside the vocabulary");
      }
    }
  }
  return std::make_unique<WordPieceTokenizer>(std::move(vocab), std::move(options), ids,
                                              std::move(special_template), source);
}

}  // namespace tinyenc
