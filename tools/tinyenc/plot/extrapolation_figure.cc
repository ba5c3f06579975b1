#include "plot/extrapolation_figure.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "plot/axis.h"
#include "plot/color.h"
#include "plot/line_chart.h"
#include "plot/text_metrics.h"

namespace tinyenc::plot {
namespace {

constexpr double kLeft = 80;
constexpr double kTop = 70;      // with one row of labels above the plot
constexpr double kMarkRow = 12;  // between two rows of labels above the plot
constexpr double kPlotWidth = 480;
constexpr double kPlotHeight = 280;

std::string point_tooltip(const std::string& name, Point point) {
  char buffer[96];
  std::snprintf(buffer, sizeof buffer, ": %g tokens, %.1f%%", point.x, 100 * point.y);
  return name + buffer;
}

}  // namespace

std::string draw_extrapolation_figure(const ExtrapolationFigure& figure) {
  const std::string title = "Length extrapolation: accuracy against sentence length";
  // Each curve in its kind's colour, marker and dash, as in the other figures; a second model
  // of a kind gets colours and styles of its own.
  struct CurveLook {
    std::string color;
    SeriesStyle style;
  };
  std::vector<std::string> names;
  std::vector<CurveLook> looks;
  std::vector<LegendEntry> legend_names;
  for (size_t c = 0; c < figure.curves.size(); ++c) {
    const AccuracyCurve& curve = figure.curves[c];
    bool kind_seen = false;
    for (size_t earlier = 0; earlier < c; ++earlier) {
      kind_seen = kind_seen || figure.curves[earlier].position_encoding == curve.position_encoding;
    }
    names.push_back(curve.name + " (" + curve.position_encoding + ")");
    looks.push_back(
        {kind_seen ? series_color(c) : position_encoding_color(curve.position_encoding),
         kind_seen ? series_style(c) : position_encoding_style(curve.position_encoding)});
    legend_names.push_back({names.back(), "", true});
  }
  LineChartAxes axes;
  axes.x_title = "sentence length (tokens, with the template's special tokens)";
  axes.y_title = "accuracy";
  axes.x_low = figure.x_low;
  axes.x_high = figure.x_high > figure.x_low ? figure.x_high : figure.x_low + 1;
  axes.y_low = 0;
  axes.y_high = 1;
  // The x scale draw_line_chart uses: it spans the range exactly.
  const LinearScale x{axes.x_low, axes.x_high, kLeft, kLeft + kPlotWidth};

  // Vertical marks: each distinct limit and training length, labelled once. The labels sit in
  // rows above the plot, over their marks (the limit is often the plot's right edge, where a
  // label inside would run into the legend), each in the lowest row where it overlaps no other.
  std::set<double> limits, trained;
  for (const AccuracyCurve& curve : figure.curves) {
    if (curve.limit && *curve.limit <= axes.x_high) limits.insert(*curve.limit);
    if (curve.trained && *curve.trained <= axes.x_high) trained.insert(*curve.trained);
  }
  struct Mark {
    double px;  // the mark's x in pixels
    std::string label, dash;
    double left = 0, right = 0;  // the label's extent in pixels
    size_t row = 0;
  };
  std::vector<Mark> marks;
  for (double value : trained) {
    marks.push_back({x(std::max(axes.x_low, value)), "trained \u2264 " + svg_number(value), "6 3"});
  }
  for (double value : limits) {
    marks.push_back({x(std::max(axes.x_low, value)), "limit " + svg_number(value), "3 2"});
  }
  size_t rows = 1;
  for (auto mark = marks.begin(); mark != marks.end(); ++mark) {
    const double w = text_width(mark->label, 10);
    mark->left = std::max(kLeft, std::min(mark->px - w / 2, kLeft + kPlotWidth - w));
    mark->right = mark->left + w;
    const auto taken = [&](size_t row) {
      return std::any_of(marks.begin(), mark, [&](const Mark& other) {
        return other.row == row && mark->left < other.right + 8 && other.left < mark->right + 8;
      });
    };
    while (taken(mark->row)) ++mark->row;
    rows = std::max(rows, mark->row + 1);
  }
  const double top = kTop + kMarkRow * static_cast<double>(rows - 1);

  const double legend_x = kLeft + kPlotWidth + 24;
  const double width = std::max({legend_x + legend_width(legend_names) + 16,
                                 text_width(title, 15) + 40, text_width(figure.subtitle, 11) + 40});
  const double height =
      std::max(top + kPlotHeight + 56, top + 18.0 * static_cast<double>(figure.curves.size()) + 20);
  SvgDocument svg(static_cast<int>(std::ceil(width)), static_cast<int>(std::ceil(height)));
  svg.text(20, 26, title, {.size = 15, .bold = true});
  svg.text(20, 46, figure.subtitle, {.size = 11, .fill = "#555"});

  const Box area{kLeft, top, kPlotWidth, kPlotHeight};
  draw_line_chart(svg, area, {}, axes);  // the axes; the curves are drawn below, with dashes
  // The y scale draw_line_chart used: its nice ticks over [0, 1].
  const std::vector<double> y_ticks = nice_ticks(0, 1);
  const LinearScale y{y_ticks.front(), y_ticks.back(), area.bottom(), area.y};

  for (const Mark& mark : marks) {
    svg.line({mark.px, area.y}, {mark.px, area.bottom()}, "#666", 1.2, mark.dash);
    svg.text(mark.left, area.y - 4 - kMarkRow * static_cast<double>(mark.row), mark.label,
             {.size = 10, .fill = "#444"});
  }

  std::vector<LegendEntry> legend;
  for (size_t c = 0; c < figure.curves.size(); ++c) {
    const AccuracyCurve& curve = figure.curves[c];
    const CurveLook& look = looks[c];
    std::vector<Point> pixels;
    for (const Point& point : curve.points) pixels.push_back({x(point.x), y(point.y)});
    svg.polyline(pixels, look.color, 2, "series", look.style.dash);
    for (size_t i = 0; i < pixels.size(); ++i) {
      draw_marker(svg, pixels[i], look.style.marker, 8, look.color, "point",
                  point_tooltip(names[c], curve.points[i]));
    }
    legend.push_back({names[c], look.color, true, look.style.dash, look.style.marker, true});
  }
  draw_legend(svg, legend_x, top + 8, legend);
  return svg.document();
}

}  // namespace tinyenc::plot
