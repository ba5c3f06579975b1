#include "tools/tinyenc/plot/line_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace tinyenc::plot {
namespace {

struct Extent {
  double low = std::numeric_limits<double>::infinity();
  double high = -std::numeric_limits<double>::infinity();
  void add(double value) {
    low = std::min(low, value);
    high = std::max(high, value);
  }
  bool empty() const { return low > high; }
};

std::string point_tooltip(const std::string& name, Point point) {
  char buffer[96];
  std::snprintf(buffer, sizeof buffer, ": %g, %.6g", point.x, point.y);
  return name + buffer;
}

}  // namespace

void draw_line_chart(SvgDocument& svg, const Box& area, const std::vector<Series>& series,
                     const LineChartAxes& axes) {
  Extent x_extent, y_extent;
  for (const Series& one : series) {
    for (const Point& point : one.points) {
      x_extent.add(point.x);
      y_extent.add(point.y);
    }
  }
  if (axes.x_low != axes.x_high) x_extent = {axes.x_low, axes.x_high};
  if (axes.y_low != axes.y_high) y_extent = {axes.y_low, axes.y_high};
  if (x_extent.empty()) x_extent = {0, 1};
  if (y_extent.empty()) y_extent = {0, 1};

  const std::vector<double> y_ticks = nice_ticks(y_extent.low, y_extent.high);
  const LinearScale y{y_ticks.front(), y_ticks.back(), area.bottom(), area.y};
  std::vector<double> x_ticks = nice_ticks(x_extent.low, x_extent.high, 8);
  if (axes.integer_x && x_ticks.size() > 1 && x_ticks[1] - x_ticks[0] < 1) {
    x_ticks.clear();
    for (double tick = std::floor(x_extent.low); tick <= x_extent.high; tick += 1) {
      x_ticks.push_back(tick);
    }
  }
  // The x axis spans the data exactly: curves over positions should not float in margins.
  const LinearScale x{x_extent.low, x_extent.high, area.x, area.right()};
  std::vector<double> visible_x_ticks;
  for (double tick : x_ticks) {
    if (tick >= x_extent.low - 1e-9 && tick <= x_extent.high + 1e-9)
      visible_x_ticks.push_back(tick);
  }
  draw_y_axis(svg, area, y, y_ticks, axes.y_title);
  draw_x_axis(svg, area, x, visible_x_ticks, axes.x_title);

  for (const Series& one : series) {
    std::vector<Point> pixels;
    pixels.reserve(one.points.size());
    for (const Point& point : one.points) pixels.push_back({x(point.x), y(point.y)});
    svg.polyline(pixels, one.color, 2, "series");
    if (!one.markers) continue;
    for (size_t i = 0; i < pixels.size(); ++i) {
      svg.circle(pixels[i], 3.5, one.color, "point", point_tooltip(one.name, one.points[i]));
    }
  }
}

}  // namespace tinyenc::plot
