#include "tokenizer/special_template.h"

#include <stdexcept>

namespace tinyenc {
namespace {

using Kind = TemplateItem::Kind;

TemplateItem text(Kind kind, int32_t type_id) { return {kind, "", -1, type_id}; }
TemplateItem special(const std::string& token, int32_t id, int32_t type_id) {
  return {Kind::kSpecialToken, token, id, type_id};
}

void append_text(const Encoding& from, int32_t type_id, TokenSource source, Encoding& out) {
  for (size_t i = 0; i < from.size(); ++i) {
    out.append(from.tokens[i], from.ids[i], type_id, source, from.offsets[i]);
  }
}

void check_items(const std::vector<TemplateItem>& items, bool pair) {
  int first = 0, second = 0;
  for (const TemplateItem& item : items) {
    first += item.kind == Kind::kFirstText;
    second += item.kind == Kind::kSecondText;
  }
  if (first != 1 || second != (pair ? 1 : 0)) {
    throw std::invalid_argument(pair ? "the pair template must hold each text once"
                                     : "the single template must hold the first text once and "
                                       "no second text");
  }
}

}  // namespace

SpecialTemplate plain_template() {
  return {{text(Kind::kFirstText, 0)}, {text(Kind::kFirstText, 0), text(Kind::kSecondText, 1)}};
}

SpecialTemplate bert_template(const std::string& cls, int32_t cls_id, const std::string& sep,
                              int32_t sep_id) {
  return {{special(cls, cls_id, 0), text(Kind::kFirstText, 0), special(sep, sep_id, 0)},
          {special(cls, cls_id, 0), text(Kind::kFirstText, 0), special(sep, sep_id, 0),
           text(Kind::kSecondText, 1), special(sep, sep_id, 1)}};
}

SpecialTemplate roberta_template(const std::string& bos, int32_t bos_id, const std::string& eos,
                                 int32_t eos_id) {
  return {{special(bos, bos_id, 0), text(Kind::kFirstText, 0), special(eos, eos_id, 0)},
          {special(bos, bos_id, 0), text(Kind::kFirstText, 0), special(eos, eos_id, 0),
           special(eos, eos_id, 0), text(Kind::kSecondText, 0), special(eos, eos_id, 0)}};
}

SpecialTemplate eos_template(const std::string& eos, int32_t eos_id) {
  return {{text(Kind::kFirstText, 0), special(eos, eos_id, 0)},
          {text(Kind::kFirstText, 0), special(eos, eos_id, 0), text(Kind::kSecondText, 0),
           special(eos, eos_id, 0)}};
}

void check_template(const SpecialTemplate& special_template) {
  check_items(special_template.single, false);
  check_items(special_template.pair, true);
}

Encoding apply_template(const SpecialTemplate& special_template, const Encoding& first,
                        const Encoding* second, bool add_special_tokens) {
  Encoding out;
  for (const TemplateItem& item : second ? special_template.pair : special_template.single) {
    switch (item.kind) {
      case Kind::kFirstText:
        append_text(first, item.type_id, TokenSource::kFirst, out);
        break;
      case Kind::kSecondText:
        if (second) append_text(*second, item.type_id, TokenSource::kSecond, out);
        break;
      case Kind::kSpecialToken:
        if (add_special_tokens) {
          out.append(item.token, item.id, item.type_id, TokenSource::kSpecial, TokenSpan{});
        }
        break;
    }
  }
  return out;
}

std::string describe_template(const SpecialTemplate& special_template, bool pair) {
  std::string out;
  for (const TemplateItem& item : pair ? special_template.pair : special_template.single) {
    if (!out.empty()) out += ' ';
    switch (item.kind) {
      case Kind::kFirstText:
        out += "$A";
        break;
      case Kind::kSecondText:
        out += "$B";
        break;
      case Kind::kSpecialToken:
        out += item.token;
        break;
    }
  }
  return out;
}

}  // namespace tinyenc
