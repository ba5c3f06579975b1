#include "plot/svg_check.h"

#include <libxml/parser.h>
#include <libxml/tree.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "plot/text_metrics.h"

namespace tinyenc::plot {
namespace {

bool read_size(const std::string& text, int& out) {
  const auto result = std::from_chars(text.data(), text.data() + text.size(), out);
  return !text.empty() && result.ptr == text.data() + text.size() && out > 0;
}

// An attribute's value ("" when absent), entities decoded.
std::string attribute(xmlNode* node, const char* name) {
  xmlChar* value = xmlGetProp(node, reinterpret_cast<const xmlChar*>(name));
  if (!value) return "";
  std::string text(reinterpret_cast<const char*>(value));
  xmlFree(value);
  return text;
}

// The character data inside `node`, its descendants' included.
std::string content_of(xmlNode* node) {
  xmlChar* content = xmlNodeGetContent(node);
  if (!content) return "";
  std::string text(reinterpret_cast<const char*>(content));
  xmlFree(content);
  return text;
}

double number_attribute(xmlNode* node, const char* name, double otherwise) {
  const std::string text = attribute(node, name);
  if (text.empty()) return otherwise;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  return end == text.c_str() ? otherwise : value;
}

// The box of `left`..`right`, `top`..`bottom` turned by a "rotate(a cx cy)" transform (other
// transforms are not written by this module and leave the box as it is).
TextBox transformed(TextBox box, const std::string& transform) {
  double angle = 0, cx = 0, cy = 0;
  if (std::sscanf(transform.c_str(), "rotate(%lf %lf %lf)", &angle, &cx, &cy) != 3) return box;
  const double radians = angle * std::acos(-1.0) / 180, c = std::cos(radians),
               s = std::sin(radians);
  double left = INFINITY, top = INFINITY, right = -INFINITY, bottom = -INFINITY;
  for (const double x : {box.left, box.right}) {
    for (const double y : {box.top, box.bottom}) {
      const double tx = cx + c * (x - cx) - s * (y - cy), ty = cy + s * (x - cx) + c * (y - cy);
      left = std::min(left, tx);
      right = std::max(right, tx);
      top = std::min(top, ty);
      bottom = std::max(bottom, ty);
    }
  }
  box.left = left;
  box.top = top;
  box.right = right;
  box.bottom = bottom;
  return box;
}

TextBox text_box(xmlNode* node, const std::string& content) {
  const double x = number_attribute(node, "x", 0), y = number_attribute(node, "y", 0);
  const double size = number_attribute(node, "font-size", 12);
  const double width = text_width(content, size);
  const std::string anchor = attribute(node, "text-anchor");
  const double left = anchor == "middle" ? x - width / 2 : anchor == "end" ? x - width : x;
  const bool central = attribute(node, "dominant-baseline") == "central";
  const double top = central ? y - 0.5 * size : y - 0.8 * size;
  return transformed({content, left, top, left + width, top + 1.05 * size},
                     attribute(node, "transform"));
}

// A legend's sample: its points' extent, with room for the marker on it.
TextBox legend_line_box(xmlNode* node) {
  TextBox box{"legend line", INFINITY, INFINITY, -INFINITY, -INFINITY};
  const std::string points = attribute(node, "points");
  const char* cursor = points.c_str();
  for (;;) {
    char* end = nullptr;
    const double x = std::strtod(cursor, &end);
    if (end == cursor) break;
    cursor = end;
    while (*cursor == ',' || *cursor == ' ') ++cursor;
    const double y = std::strtod(cursor, &end);
    if (end == cursor) break;
    cursor = end;
    box.left = std::min(box.left, x);
    box.right = std::max(box.right, x);
    box.top = std::min(box.top, y - 4);
    box.bottom = std::max(box.bottom, y + 4);
  }
  return box;
}

// `inherited_font` is the font-family in effect around `node` (the nearest ancestor's).
void visit(xmlNode* node, SvgCheck& result, const std::string& inherited_font) {
  for (; node; node = node->next) {
    if (node->type == XML_ELEMENT_NODE) {
      ++result.elements;
      if (xmlHasProp(node, reinterpret_cast<const xmlChar*>("class"))) {
        ++result.classes[attribute(node, "class")];
      }
      std::string font = attribute(node, "font-family");
      if (font.empty()) font = inherited_font;
      const std::string_view name(reinterpret_cast<const char*>(node->name));
      if (name == "text") {
        const std::string content = content_of(node);
        if (has_cjk(content) && !names_cjk_font(font)) {
          result.cjk_text_without_cjk_font.push_back(content);
        }
        result.text_boxes.push_back(text_box(node, content));
      } else if (name == "polyline" && attribute(node, "class") == "legend-line") {
        const TextBox box = legend_line_box(node);
        if (box.left <= box.right) result.text_boxes.push_back(box);
      }
      visit(node->children, result, font);
    } else if (node->type == XML_TEXT_NODE && node->content) {
      result.text += reinterpret_cast<const char*>(node->content);
    }
  }
}

struct FreeDocument {
  void operator()(xmlDoc* document) const { xmlFreeDoc(document); }
};

}  // namespace

std::vector<std::string> overlapping_text(const SvgCheck& check, double tolerance) {
  std::vector<std::string> pairs;
  const std::vector<TextBox>& boxes = check.text_boxes;
  for (size_t i = 0; i < boxes.size(); ++i) {
    for (size_t j = i + 1; j < boxes.size(); ++j) {
      const TextBox &a = boxes[i], &b = boxes[j];
      const double across = std::min(a.right, b.right) - std::max(a.left, b.left);
      const double down = std::min(a.bottom, b.bottom) - std::max(a.top, b.top);
      if (across > tolerance && down > tolerance) pairs.push_back(a.text + " / " + b.text);
    }
  }
  return pairs;
}

bool has_cjk(std::string_view text) {
  // A small UTF-8 decoder: ill-formed bytes are skipped, they are no CJK character either way.
  for (size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const int length = byte < 0x80           ? 1
                       : (byte >> 5) == 0x6  ? 2
                       : (byte >> 4) == 0xE  ? 3
                       : (byte >> 3) == 0x1E ? 4
                                             : 1;
    if (length == 1 || i + static_cast<size_t>(length) > text.size()) {
      ++i;
      continue;
    }
    uint32_t c = byte & (0x7Fu >> length);
    for (int k = 1; k < length; ++k)
      c = (c << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    i += static_cast<size_t>(length);
    if ((c >= 0x2E80 && c <= 0x9FFF) ||    // radicals, CJK punctuation, kana, ideographs
        (c >= 0xAC00 && c <= 0xD7AF) ||    // hangul syllables
        (c >= 0xF900 && c <= 0xFAFF) ||    // compatibility ideographs
        (c >= 0xFF00 && c <= 0xFFEF) ||    // full-width forms
        (c >= 0x20000 && c <= 0x3FFFF)) {  // ideographs of the supplementary planes
      return true;
    }
  }
  return false;
}

bool names_cjk_font(std::string_view font_family) {
  static constexpr std::string_view kCjkFamilies[] = {
      "noto sans cjk", "noto serif cjk", "source han sans",  "source han serif",
      "wenquanyi",     "pingfang",       "hiragino sans gb", "microsoft yahei",
      "simhei",        "simsun",         "noto sans sc",     "droid sans fallback",
      "ar pl"};
  std::string lower(font_family);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (std::string_view family : kCjkFamilies) {
    if (lower.find(family) != std::string::npos) return true;
  }
  return false;
}

SvgCheck check_svg(std::string_view document) {
  SvgCheck result;
  // XML_PARSE_NONET: a document never makes the checker fetch anything. No entity substitution
  // beyond XML's own five and character references, no DTD loading.
  const std::unique_ptr<xmlDoc, FreeDocument> parsed(
      xmlReadMemory(document.data(), static_cast<int>(document.size()), "image.svg", nullptr,
                    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING));
  if (!parsed) {
    const xmlError* error = xmlGetLastError();
    result.error = error && error->message ? error->message : "not well-formed XML";
    while (!result.error.empty() && result.error.back() == '\n') result.error.pop_back();
    if (error) result.error += " (line " + std::to_string(error->line) + ")";
    return result;
  }
  xmlNode* root = xmlDocGetRootElement(parsed.get());
  if (!root) {
    result.error = "no root element";
    return result;
  }
  const std::string name = reinterpret_cast<const char*>(root->name);
  if (name != "svg") {
    result.error = "the root element is <" + name + ">, not <svg>";
    return result;
  }
  if (!root->ns || !root->ns->href ||
      std::string(reinterpret_cast<const char*>(root->ns->href)) != "http://www.w3.org/2000/svg") {
    result.error = "the root <svg> lacks the SVG namespace";
    return result;
  }
  if (!read_size(attribute(root, "width"), result.width) ||
      !read_size(attribute(root, "height"), result.height)) {
    result.error = "the root <svg> needs whole-pixel width and height attributes";
    return result;
  }
  const std::string view_box =
      "0 0 " + std::to_string(result.width) + " " + std::to_string(result.height);
  if (attribute(root, "viewBox") != view_box) {
    result.error = "viewBox is not '" + view_box + "'";
    return result;
  }
  visit(root, result, "");
  // visit() walks the root's siblings too: comments and the like, never a second element (the
  // parser refuses that), so the count is the document's elements.
  return result;
}

}  // namespace tinyenc::plot
