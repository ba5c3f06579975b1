// Reading back an SVG document this module wrote, far enough to trust it: well-formed XML (as
// libxml2 judges it), a root <svg> with the SVG namespace and a fixed size, and how many elements
// carry each class ("cell", "bar"). For tests, and for anyone who wants to check a picture
// without a browser.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace tinyenc::plot {

struct SvgCheck {
  std::string error;  // empty when the document passed
  int width = 0, height = 0;
  int elements = 0;
  std::map<std::string, int> classes;  // class attribute value -> elements with it
  std::string text;                    // all character data, concatenated (entities decoded)

  bool ok() const { return error.empty(); }
  int count(const std::string& css_class) const {
    const auto found = classes.find(css_class);
    return found == classes.end() ? 0 : found->second;
  }
};

SvgCheck check_svg(std::string_view document);

}  // namespace tinyenc::plot
