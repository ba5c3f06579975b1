#include "plot/svg.h"

#include <charconv>
#include <cmath>
#include <stdexcept>

namespace tinyenc::plot {

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // XML 1.0 forbids most C0 controls even as entities: show them as spaces.
        out += (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n') ? ' ' : c;
    }
  }
  return out;
}

std::string svg_number(double value) {
  if (!std::isfinite(value)) return "0";
  // Round to hundredths first so that -0.001 prints as "0", not "-0".
  double rounded = std::round(value * 100.0) / 100.0;
  if (rounded == 0.0) rounded = 0.0;
  char buffer[64];
  const auto result =
      std::to_chars(buffer, buffer + sizeof buffer, rounded, std::chars_format::fixed, 2);
  std::string text(buffer, result.ptr);
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  return text;
}

SvgDocument::SvgDocument(int width, int height) : width_(width), height_(height) {
  if (width <= 0 || height <= 0) throw std::invalid_argument("svg: the size must be positive");
}

void SvgDocument::start_tag(std::string_view name, const Attributes& attributes) {
  body_ += '<';
  body_ += name;
  for (const auto& [key, value] : attributes) {
    if (value.empty()) continue;  // an attribute left out, not written as ""
    body_ += ' ';
    body_ += key;
    body_ += "=\"";
    body_ += xml_escape(value);
    body_ += '"';
  }
}

void SvgDocument::element(std::string_view name, const Attributes& attributes,
                          std::string_view title) {
  start_tag(name, attributes);
  if (title.empty()) {
    body_ += "/>\n";
    return;
  }
  body_ += "><title>";
  body_ += xml_escape(title);
  body_ += "</title></";
  body_ += name;
  body_ += ">\n";
}

void SvgDocument::rect(double x, double y, double w, double h, std::string_view fill,
                       std::string_view css_class, std::string_view tooltip) {
  element("rect",
          {{"x", svg_number(x)},
           {"y", svg_number(y)},
           {"width", svg_number(w)},
           {"height", svg_number(h)},
           {"fill", std::string(fill)},
           {"class", std::string(css_class)}},
          tooltip);
}

void SvgDocument::line(Point from, Point to, std::string_view stroke, double stroke_width,
                       std::string_view dash) {
  element("line",
          {{"x1", svg_number(from.x)},
           {"y1", svg_number(from.y)},
           {"x2", svg_number(to.x)},
           {"y2", svg_number(to.y)},
           {"stroke", std::string(stroke)},
           {"stroke-width", svg_number(stroke_width)},
           {"stroke-dasharray", std::string(dash)}},
          "");
}

namespace {

std::string coordinates_of(const std::vector<Point>& points) {
  std::string coordinates;
  for (const Point& point : points) {
    if (!coordinates.empty()) coordinates += ' ';
    coordinates += svg_number(point.x) + "," + svg_number(point.y);
  }
  return coordinates;
}

}  // namespace

void SvgDocument::polyline(const std::vector<Point>& points, std::string_view stroke,
                           double stroke_width, std::string_view css_class, std::string_view dash) {
  element("polyline",
          {{"points", coordinates_of(points)},
           {"fill", "none"},
           {"stroke", std::string(stroke)},
           {"stroke-width", svg_number(stroke_width)},
           {"stroke-linejoin", "round"},
           {"stroke-dasharray", std::string(dash)},
           {"class", std::string(css_class)}},
          "");
}

void SvgDocument::polygon(const std::vector<Point>& points, std::string_view fill,
                          std::string_view css_class, std::string_view tooltip) {
  element("polygon",
          {{"points", coordinates_of(points)},
           {"fill", std::string(fill)},
           {"class", std::string(css_class)}},
          tooltip);
}

void SvgDocument::circle(Point centre, double radius, std::string_view fill,
                         std::string_view css_class, std::string_view tooltip) {
  element("circle",
          {{"cx", svg_number(centre.x)},
           {"cy", svg_number(centre.y)},
           {"r", svg_number(radius)},
           {"fill", std::string(fill)},
           {"class", std::string(css_class)}},
          tooltip);
}

void SvgDocument::text(double x, double y, std::string_view content, const TextStyle& style) {
  static constexpr std::string_view kAnchors[] = {"start", "middle", "end"};
  std::string transform;
  if (style.rotate != 0) {
    transform =
        "rotate(" + svg_number(style.rotate) + " " + svg_number(x) + " " + svg_number(y) + ")";
  }
  start_tag("text", {{"x", svg_number(x)},
                     {"y", svg_number(y)},
                     {"font-size", svg_number(style.size)},
                     {"text-anchor", std::string(kAnchors[static_cast<int>(style.anchor)])},
                     {"dominant-baseline", style.middle_baseline ? "central" : ""},
                     {"font-weight", style.bold ? "bold" : ""},
                     {"fill", style.fill},
                     {"transform", transform}});
  body_ += '>';
  body_ += xml_escape(content);
  body_ += "</text>\n";
}

void SvgDocument::open_group(std::string_view css_class, bool crisp_edges) {
  // Heatmap cells that touch would show hairline seams where anti-aliasing blends their edges.
  start_tag("g", {{"class", std::string(css_class)},
                  {"shape-rendering", crisp_edges ? "crispEdges" : ""}});
  body_ += ">\n";
  ++open_groups_;
}

void SvgDocument::close_group() {
  if (open_groups_ == 0) throw std::logic_error("svg: close_group without open_group");
  --open_groups_;
  body_ += "</g>\n";
}

std::string SvgDocument::document() const {
  if (open_groups_ != 0) throw std::logic_error("svg: a group is still open");
  const std::string w = std::to_string(width_), h = std::to_string(height_);
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
         "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
         w + "\" height=\"" + h + "\" viewBox=\"0 0 " + w + " " + h + "\" font-family=\"" +
         std::string(kFontFamily) +
         "\">\n"
         "<rect x=\"0\" y=\"0\" width=\"" +
         w + "\" height=\"" + h + "\" fill=\"#ffffff\"/>\n" + body_ + "</svg>\n";
}

}  // namespace tinyenc::plot
