// A small writer for SVG documents drawn by hand: a fixed pixel size (width and height
// attributes plus a matching viewBox, so every viewer shows the same picture), shapes appended in
// drawing order, and every piece of text and every attribute value escaped as XML.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tinyenc::plot {

// The font families every document asks for, on its root <svg>: fonts with Chinese glyphs first
// (Debian's fonts-noto-cjk and fonts-wqy-microhei, Adobe's name for Noto's, macOS's and
// Windows's), the generic sans-serif last. Naming only sans-serif shows Chinese labels as boxes
// wherever the default sans font has no Chinese glyphs. Quoted with ' so that it sits inside a
// "-quoted attribute as it is.
inline constexpr std::string_view kFontFamily =
    "'Noto Sans CJK SC', 'WenQuanYi Micro Hei', 'Source Han Sans SC', 'PingFang SC', "
    "'Microsoft YaHei', sans-serif";

// `text` with &, <, >, " and ' replaced by entities, safe inside elements and quoted attributes.
// UTF-8 passes through unchanged: SVG is UTF-8 and Chinese labels need nothing special.
std::string xml_escape(std::string_view text);

// A coordinate as SVG wants it: at most two decimals, no trailing zeros ("12.5", "3", "-0.25").
std::string svg_number(double value);

enum class Anchor { kStart, kMiddle, kEnd };

struct TextStyle {
  double size = 12;
  Anchor anchor = Anchor::kStart;
  double rotate = 0;  // degrees, about the text's own (x, y)
  bool bold = false;
  bool middle_baseline = false;  // centre vertically on y instead of sitting on it
  std::string fill = "#222";
};

struct Point {
  double x = 0, y = 0;
};

class SvgDocument {
 public:
  SvgDocument(int width, int height);

  int width() const { return width_; }
  int height() const { return height_; }

  // `css_class` names what a shape is ("cell", "bar"): tests and style sheets find shapes by it.
  // `tooltip` becomes a <title> child, which viewers show on hover.
  void rect(double x, double y, double w, double h, std::string_view fill,
            std::string_view css_class = "", std::string_view tooltip = "");
  void line(Point from, Point to, std::string_view stroke, double stroke_width = 1,
            std::string_view dash = "");
  // `dash` is a stroke-dasharray ("6 3"); empty draws a solid line.
  void polyline(const std::vector<Point>& points, std::string_view stroke, double stroke_width,
                std::string_view css_class = "", std::string_view dash = "");
  // A closed shape filled with `fill` (markers: squares, diamonds, triangles).
  void polygon(const std::vector<Point>& points, std::string_view fill,
               std::string_view css_class = "", std::string_view tooltip = "");
  void circle(Point centre, double radius, std::string_view fill, std::string_view css_class = "",
              std::string_view tooltip = "");
  void text(double x, double y, std::string_view content, const TextStyle& style = {});

  // Groups nest; every opened group must be closed before document().
  void open_group(std::string_view css_class, bool crisp_edges = false);
  void close_group();

  // The complete document: XML declaration, root <svg> and everything drawn so far.
  std::string document() const;

 private:
  using Attributes = std::vector<std::pair<std::string_view, std::string>>;
  // Appends "<name key="value"..." (not closed); empty values are left out.
  void start_tag(std::string_view name, const Attributes& attributes);
  // A whole element: self-closing, or with a <title> child when `title` is not empty.
  void element(std::string_view name, const Attributes& attributes, std::string_view title);

  int width_, height_;
  int open_groups_ = 0;
  std::string body_;
};

}  // namespace tinyenc::plot
