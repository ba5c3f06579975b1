#include "tools/tinyenc/plot/svg_check.h"

#include <cctype>
#include <charconv>
#include <vector>

namespace tinyenc::plot {
namespace {

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == ':' ||
         c == '.';
}

// Decodes the entities of `raw` into `out`; false on a bare '&' or an unknown entity.
bool decode_entities(std::string_view raw, std::string& out) {
  size_t i = 0;
  while (i < raw.size()) {
    if (raw[i] != '&') {
      out += raw[i++];
      continue;
    }
    const size_t end = raw.find(';', i);
    if (end == std::string_view::npos) return false;
    const std::string_view name = raw.substr(i + 1, end - i - 1);
    if (name == "amp") {
      out += '&';
    } else if (name == "lt") {
      out += '<';
    } else if (name == "gt") {
      out += '>';
    } else if (name == "quot") {
      out += '"';
    } else if (name == "apos") {
      out += '\'';
    } else if (name.size() > 1 && name[0] == '#') {
      const bool hex = name[1] == 'x';
      const std::string_view digits = name.substr(hex ? 2 : 1);
      unsigned value = 0;
      const auto result =
          std::from_chars(digits.data(), digits.data() + digits.size(), value, hex ? 16 : 10);
      if (digits.empty() || result.ptr != digits.data() + digits.size()) return false;
      out += '?';  // the code point itself does not matter to the checks
    } else {
      return false;
    }
    i = end + 1;
  }
  return true;
}

class Checker {
 public:
  explicit Checker(std::string_view text) : text_(text) {}

  SvgCheck run() {
    skip_space();
    if (text_.substr(at_, 5) == "<?xml") {
      const size_t end = text_.find("?>", at_);
      if (end == std::string_view::npos) return fail("unterminated XML declaration");
      at_ = end + 2;
    }
    std::vector<std::string> open;
    bool root_seen = false;
    while (at_ < text_.size()) {
      if (text_[at_] != '<') {
        const size_t end = text_.find('<', at_);
        const std::string_view data = text_.substr(at_, end - at_);
        at_ = end == std::string_view::npos ? text_.size() : end;
        if (open.empty()) {
          if (data.find_first_not_of(" \t\r\n") != std::string_view::npos) {
            return fail("text outside the root element");
          }
          continue;
        }
        if (data.find('>') != std::string_view::npos) return fail("'>' in character data");
        if (!decode_entities(data, result_.text)) return fail("bad entity in character data");
        continue;
      }
      if (text_.substr(at_, 4) == "<!--") {
        const size_t end = text_.find("-->", at_);
        if (end == std::string_view::npos) return fail("unterminated comment");
        at_ = end + 3;
        continue;
      }
      if (text_.substr(at_, 2) == "</") {
        at_ += 2;
        const std::string name = read_name();
        skip_space();
        if (name.empty() || at_ >= text_.size() || text_[at_] != '>') {
          return fail("malformed closing tag");
        }
        ++at_;
        if (open.empty() || open.back() != name) {
          return fail("</" + name + "> does not close " +
                      (open.empty() ? std::string("anything") : "<" + open.back() + ">"));
        }
        open.pop_back();
        continue;
      }
      // A start tag.
      ++at_;
      const std::string name = read_name();
      if (name.empty()) return fail("malformed tag");
      if (open.empty() && root_seen) return fail("more than one root element");
      std::map<std::string, std::string> attributes;
      while (true) {
        skip_space();
        if (at_ >= text_.size()) return fail("unterminated <" + name + ">");
        if (text_[at_] == '>' || text_.substr(at_, 2) == "/>") break;
        const std::string key = read_name();
        skip_space();
        if (key.empty() || at_ >= text_.size() || text_[at_] != '=') {
          return fail("malformed attribute in <" + name + ">");
        }
        ++at_;
        skip_space();
        if (at_ >= text_.size() || (text_[at_] != '"' && text_[at_] != '\'')) {
          return fail("unquoted attribute " + key + " in <" + name + ">");
        }
        const char quote = text_[at_++];
        const size_t end = text_.find(quote, at_);
        if (end == std::string_view::npos) return fail("unterminated attribute " + key);
        const std::string_view raw = text_.substr(at_, end - at_);
        at_ = end + 1;
        std::string value;
        if (raw.find('<') != std::string_view::npos || !decode_entities(raw, value)) {
          return fail("bad character in attribute " + key + " of <" + name + ">");
        }
        if (!attributes.emplace(key, value).second) return fail("repeated attribute " + key);
      }
      if (!root_seen) {
        root_seen = true;
        if (name != "svg") return fail("the root element is <" + name + ">, not <svg>");
        if (attributes["xmlns"] != "http://www.w3.org/2000/svg") {
          return fail("the root <svg> lacks the SVG namespace");
        }
        if (!read_size(attributes["width"], result_.width) ||
            !read_size(attributes["height"], result_.height)) {
          return fail("the root <svg> needs whole-pixel width and height attributes");
        }
        const std::string view_box =
            "0 0 " + std::to_string(result_.width) + " " + std::to_string(result_.height);
        if (attributes["viewBox"] != view_box) return fail("viewBox is not '" + view_box + "'");
      }
      ++result_.elements;
      if (attributes.count("class")) ++result_.classes[attributes["class"]];
      if (text_[at_] == '>') {
        ++at_;
        open.push_back(name);
      } else {
        at_ += 2;
      }
    }
    if (!root_seen) return fail("no root element");
    if (!open.empty()) return fail("<" + open.back() + "> is never closed");
    return result_;
  }

 private:
  static bool read_size(const std::string& text, int& out) {
    const auto result = std::from_chars(text.data(), text.data() + text.size(), out);
    return !text.empty() && result.ptr == text.data() + text.size() && out > 0;
  }

  SvgCheck fail(const std::string& error) {
    result_.error = error + " (byte " + std::to_string(at_) + ")";
    return result_;
  }

  void skip_space() {
    while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
  }

  std::string read_name() {
    const size_t begin = at_;
    while (at_ < text_.size() && is_name_char(text_[at_])) ++at_;
    return std::string(text_.substr(begin, at_ - begin));
  }

  std::string_view text_;
  size_t at_ = 0;
  SvgCheck result_;
};

}  // namespace

SvgCheck check_svg(std::string_view document) { return Checker(document).run(); }

}  // namespace tinyenc::plot
