#include "tools/tinyenc/plot/extrapolation_figure.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "tools/tinyenc/plot/axis.h"
#include "tools/tinyenc/plot/color.h"
#include "tools/tinyenc/plot/line_chart.h"
#include "tools/tinyenc/plot/text_metrics.h"

namespace tinyenc::plot {
namespace {

constexpr double kLeft = 80;
constexpr double kTop = 70;
constexpr double kPlotWidth = 480;
constexpr double kPlotHeight = 280;

std::string point_tooltip(const std::string& name, Point point) {
  char buffer[96];
  std::snprintf(buffer, sizeof buffer, ": %g tokens, %.1f%%", point.x, 100 * point.y);
  return name + buffer;
}

}  // namespace

std::string series_dash(size_t index) {
  static const char* const kDashes[] = {"", "8 4", "2 3", "10 3 2 3", "4 4", "12 4 2 4 2 4"};
  return kDashes[index % (sizeof kDashes / sizeof kDashes[0])];
}

void draw_marker(SvgDocument& svg, size_t index, Point centre, double radius,
                 const std::string& color, const std::string& tooltip) {
  const double r = radius, x = centre.x, y = centre.y;
  switch (index % 6) {
    case 0:
      svg.circle(centre, r, color, "point", tooltip);
      return;
    case 1:
      svg.rect(x - r * 0.9, y - r * 0.9, 1.8 * r, 1.8 * r, color, "point", tooltip);
      return;
    case 2:
      svg.polyline({{x, y - 1.2 * r},
                    {x + 1.1 * r, y + 0.8 * r},
                    {x - 1.1 * r, y + 0.8 * r},
                    {x, y - 1.2 * r}},
                   color, 1.8, "point");
      break;
    case 3:
      svg.polyline({{x, y - 1.3 * r},
                    {x + 1.3 * r, y},
                    {x, y + 1.3 * r},
                    {x - 1.3 * r, y},
                    {x, y - 1.3 * r}},
                   color, 1.8, "point");
      break;
    case 4:
      svg.line({x - 1.3 * r, y}, {x + 1.3 * r, y}, color, 2);
      svg.line({x, y - 1.3 * r}, {x, y + 1.3 * r}, color, 2);
      break;
    default:
      svg.line({x - r, y - r}, {x + r, y + r}, color, 2);
      svg.line({x - r, y + r}, {x + r, y - r}, color, 2);
      break;
  }
  // Outline shapes carry their hover text on an invisible disc.
  svg.circle(centre, r, "transparent", "", tooltip);
}

std::string draw_extrapolation_figure(const ExtrapolationFigure& figure) {
  const std::string title = "Length extrapolation: accuracy against sentence length";
  double widest_name = 0;
  std::vector<std::string> names;
  for (const AccuracyCurve& curve : figure.curves) {
    names.push_back(curve.name + " (" + curve.position_encoding + ")");
    widest_name = std::max(widest_name, text_width(names.back(), 11));
  }
  const double legend_x = kLeft + kPlotWidth + 24;
  const double width = std::max({legend_x + 44 + widest_name + 16, text_width(title, 15) + 40,
                                 text_width(figure.subtitle, 11) + 40});
  const double height = std::max(kTop + kPlotHeight + 56,
                                 kTop + 22.0 * static_cast<double>(figure.curves.size()) + 20);
  SvgDocument svg(static_cast<int>(std::ceil(width)), static_cast<int>(std::ceil(height)));
  svg.text(20, 26, title, {.size = 15, .bold = true});
  svg.text(20, 46, figure.subtitle, {.size = 11, .fill = "#555"});

  const Box area{kLeft, kTop, kPlotWidth, kPlotHeight};
  LineChartAxes axes;
  axes.x_title = "sentence length (tokens, with the template's special tokens)";
  axes.y_title = "accuracy";
  axes.x_low = figure.x_low;
  axes.x_high = figure.x_high > figure.x_low ? figure.x_high : figure.x_low + 1;
  axes.y_low = 0;
  axes.y_high = 1;
  draw_line_chart(svg, area, {}, axes);  // the axes; the curves are drawn below, with dashes
  // The scales draw_line_chart used: x spans the range exactly, y its nice ticks over [0, 1].
  const std::vector<double> y_ticks = nice_ticks(0, 1);
  const LinearScale y{y_ticks.front(), y_ticks.back(), area.bottom(), area.y};
  const LinearScale x{axes.x_low, axes.x_high, area.x, area.right()};

  // Vertical marks: each distinct limit and training length, labelled once.
  std::set<double> limits, trained;
  for (const AccuracyCurve& curve : figure.curves) {
    if (curve.limit && *curve.limit <= axes.x_high) limits.insert(*curve.limit);
    if (curve.trained && *curve.trained <= axes.x_high) trained.insert(*curve.trained);
  }
  const auto mark = [&](double value, const std::string& label, const std::string& dash,
                        double row) {
    const double px = x(std::max(axes.x_low, value));
    svg.line({px, area.y}, {px, area.bottom()}, "#666", 1.2, dash);
    svg.text(px + 4, area.y + 12 + 14 * row, label, {.size = 10, .fill = "#444"});
  };
  double row = 0;
  for (double value : trained) mark(value, "trained \u2264 " + svg_number(value), "6 3", row++);
  for (double value : limits) mark(value, "limit " + svg_number(value), "2 3", row++);

  for (size_t c = 0; c < figure.curves.size(); ++c) {
    const AccuracyCurve& curve = figure.curves[c];
    const std::string color = position_encoding_color(curve.position_encoding);
    std::vector<Point> pixels;
    for (const Point& point : curve.points) pixels.push_back({x(point.x), y(point.y)});
    svg.open_group("series");
    for (size_t i = 1; i < pixels.size(); ++i) {
      svg.line(pixels[i - 1], pixels[i], color, 2, series_dash(c));
    }
    svg.close_group();
    for (size_t i = 0; i < pixels.size(); ++i) {
      draw_marker(svg, c, pixels[i], 4, color, point_tooltip(names[c], curve.points[i]));
    }
    // The legend: a stretch of the line with its marker, then the name.
    const double legend_y = kTop + 8 + 22.0 * static_cast<double>(c);
    svg.line({legend_x, legend_y}, {legend_x + 34, legend_y}, color, 2, series_dash(c));
    draw_marker(svg, c, {legend_x + 17, legend_y}, 4, color, names[c]);
    svg.text(legend_x + 42, legend_y, names[c], {.size = 11, .middle_baseline = true});
  }
  return svg.document();
}

}  // namespace tinyenc::plot
