// Reading back an SVG document this module wrote, far enough to trust it: well-formed XML (as
// libxml2 judges it), a root <svg> with the SVG namespace and a fixed size, and how many elements
// carry each class ("cell", "bar"). For tests, and for anyone who wants to check a picture
// without a browser.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tinyenc::plot {

// Where a <text> shows, as the figures estimate it when laying text out (text_width's generous
// width; 0.8 em above the baseline and 0.25 em below; anchor, central baseline and a rotate()
// transform applied), or a legend's stretch of line with its marker; in the document's pixels.
struct TextBox {
  std::string text;  // the content; "legend line" for a legend's sample
  double left = 0, top = 0, right = 0, bottom = 0;
};

struct SvgCheck {
  std::string error;  // empty when the document passed
  int width = 0, height = 0;
  int elements = 0;
  std::map<std::string, int> classes;  // class attribute value -> elements with it
  std::string text;                    // all character data, concatenated (entities decoded)
  // The <text> elements holding Chinese, Japanese or Korean characters whose font-family (their
  // own, or the nearest ancestor's) names no font known to have those glyphs: a renderer whose
  // default sans-serif lacks them draws boxes. Their contents, in document order.
  std::vector<std::string> cjk_text_without_cjk_font;
  // Every <text> and every element of class "legend-line", in document order.
  std::vector<TextBox> text_boxes;

  bool ok() const { return error.empty(); }
  int count(const std::string& css_class) const {
    const auto found = classes.find(css_class);
    return found == classes.end() ? 0 : found->second;
  }
};

SvgCheck check_svg(std::string_view document);

// The pairs of text_boxes that overlap by more than `tolerance` pixels both ways: labels drawn
// over each other or over a legend. Each pair as "first" / "second", for a test to print.
std::vector<std::string> overlapping_text(const SvgCheck& check, double tolerance = 0.5);

// Whether `text` (UTF-8) holds a CJK ideograph, kana, hangul or full-width form.
bool has_cjk(std::string_view text);

// Whether a CSS font-family list names a font with Chinese glyphs (Noto Sans CJK, Source Han
// Sans, WenQuanYi, PingFang, Microsoft YaHei, ...).
bool names_cjk_font(std::string_view font_family);

}  // namespace tinyenc::plot
