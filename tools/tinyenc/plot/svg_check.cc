#include "tools/tinyenc/plot/svg_check.h"

#include <libxml/parser.h>
#include <libxml/tree.h>

#include <charconv>
#include <memory>

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

void visit(xmlNode* node, SvgCheck& result) {
  for (; node; node = node->next) {
    if (node->type == XML_ELEMENT_NODE) {
      ++result.elements;
      if (xmlHasProp(node, reinterpret_cast<const xmlChar*>("class"))) {
        ++result.classes[attribute(node, "class")];
      }
      visit(node->children, result);
    } else if (node->type == XML_TEXT_NODE && node->content) {
      result.text += reinterpret_cast<const char*>(node->content);
    }
  }
}

struct FreeDocument {
  void operator()(xmlDoc* document) const { xmlFreeDoc(document); }
};

}  // namespace

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
  visit(root, result);
  // visit() walks the root's siblings too: comments and the like, never a second element (the
  // parser refuses that), so the count is the document's elements.
  return result;
}

}  // namespace tinyenc::plot
