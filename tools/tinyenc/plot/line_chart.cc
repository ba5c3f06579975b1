#include "plot/line_chart.h"

#include <tinyenc/position_encoding.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string_view>
#include <utility>

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

SeriesStyle series_style(size_t index) {
  static const SeriesStyle kStyles[] = {
      {MarkerShape::kCircle, ""},          {MarkerShape::kSquare, "7 3"},
      {MarkerShape::kTriangleUp, "2 3"},   {MarkerShape::kDiamond, "9 3 2 3"},
      {MarkerShape::kTriangleDown, "4 2"}, {MarkerShape::kPlus, "1 3"}};
  return kStyles[index % std::size(kStyles)];
}

SeriesStyle position_encoding_style(std::string_view name) {
  const PositionEncodingDescription* kind =
      find_position_encoding_description(name.substr(0, name.find(' ')));
  if (!kind) return {MarkerShape::kCircle, "3 3"};
  static constexpr std::pair<std::string_view, MarkerShape> kMarkers[] = {
      {"circle", MarkerShape::kCircle},
      {"square", MarkerShape::kSquare},
      {"diamond", MarkerShape::kDiamond},
      {"triangle-up", MarkerShape::kTriangleUp},
      {"triangle-down", MarkerShape::kTriangleDown},
      {"plus", MarkerShape::kPlus}};
  MarkerShape marker = MarkerShape::kCircle;
  for (const auto& [marker_name, shape] : kMarkers) {
    if (marker_name == kind->figure.marker) marker = shape;
  }
  return {marker, kind->figure.dash};
}

LegendEntry legend_entry(const Series& series) {
  return {series.name, series.color, true, series.dash, series.marker, series.markers};
}

Interval y_data_range(const std::vector<Series>& series, bool log) {
  Extent extent;
  const auto add = [&](double value) {
    if (std::isfinite(value) && (!log || value > 0)) extent.add(value);
  };
  for (const Series& one : series) {
    for (const Point& point : one.points) add(point.y);
    for (const Interval& whisker : one.whiskers) {
      add(whisker.low);
      add(whisker.high);
    }
  }
  return extent.empty() ? Interval{} : Interval{extent.low, extent.high};
}

void draw_line_chart(SvgDocument& svg, const Box& area, const std::vector<Series>& series,
                     const LineChartAxes& axes) {
  Extent x_extent, y_extent;
  // A log axis cannot show values <= 0: they stay out of its extent and are clamped onto it.
  const auto add = [](Extent& extent, double value, bool log) {
    if (!log || value > 0) extent.add(value);
  };
  for (const Series& one : series) {
    for (const Point& point : one.points) {
      add(x_extent, point.x, axes.log_x);
      add(y_extent, point.y, axes.log_y);
    }
    for (const Interval& whisker : one.whiskers) {
      add(y_extent, whisker.low, axes.log_y);
      add(y_extent, whisker.high, axes.log_y);
    }
  }
  if (axes.x_low != axes.x_high) x_extent = {axes.x_low, axes.x_high};
  if (axes.y_low != axes.y_high) y_extent = {axes.y_low, axes.y_high};
  if (x_extent.empty()) x_extent = axes.log_x ? Extent{1, 10} : Extent{0, 1};
  if (y_extent.empty()) y_extent = axes.log_y ? Extent{1, 10} : Extent{0, 1};
  // Data units to axis units: log10 on a log axis.
  const auto to_x = [&](double value) {
    return axes.log_x ? std::log10(std::max(value, x_extent.low)) : value;
  };
  const auto to_y = [&](double value) {
    return axes.log_y ? std::log10(std::max(value, y_extent.low)) : value;
  };

  std::vector<double> y_ticks;
  std::vector<std::string> y_labels;
  if (axes.log_y) {
    for (double tick : log_ticks(y_extent.low, y_extent.high)) {
      y_ticks.push_back(std::log10(tick));
      y_labels.push_back(log_tick_label(tick));
    }
  } else {
    y_ticks = nice_ticks(y_extent.low, y_extent.high);
  }
  const LinearScale y{y_ticks.front(), y_ticks.back(), area.bottom(), area.y};
  std::vector<double> x_ticks = axes.x_ticks;
  if (x_ticks.empty() && axes.log_x) x_ticks = log_ticks(x_extent.low, x_extent.high);
  if (x_ticks.empty()) {
    x_ticks = nice_ticks(x_extent.low, x_extent.high, 8);
    if (axes.integer_x && x_ticks.size() > 1 && x_ticks[1] - x_ticks[0] < 1) {
      x_ticks.clear();
      for (double tick = std::floor(x_extent.low); tick <= x_extent.high; tick += 1) {
        x_ticks.push_back(tick);
      }
    }
  }
  // The x axis spans the data exactly: curves over positions should not float in margins.
  const LinearScale x{to_x(x_extent.low), to_x(x_extent.high), area.x, area.right()};
  std::vector<double> visible_x_ticks;
  std::vector<std::string> x_labels;
  const bool label_values = axes.log_x || !axes.x_ticks.empty();
  const double slack = 1e-9 * std::max({1.0, std::abs(x_extent.low), std::abs(x_extent.high)});
  for (double tick : x_ticks) {
    if (tick >= x_extent.low - slack && tick <= x_extent.high + slack) {
      visible_x_ticks.push_back(to_x(tick));
      if (label_values) x_labels.push_back(log_tick_label(tick));
    }
  }
  draw_y_axis(svg, area, y, y_ticks, axes.y_title, y_labels);
  draw_x_axis(svg, area, x, visible_x_ticks, axes.x_title, x_labels);

  for (const Series& one : series) {
    std::vector<Point> pixels;
    pixels.reserve(one.points.size());
    for (const Point& point : one.points) pixels.push_back({x(to_x(point.x)), y(to_y(point.y))});
    for (size_t i = 0; i < pixels.size() && i < one.whiskers.size(); ++i) {
      const double centre = pixels[i].x;
      const double low = y(to_y(one.whiskers[i].low)), high = y(to_y(one.whiskers[i].high));
      svg.polyline({{centre - 3, low},
                    {centre + 3, low},
                    {centre, low},
                    {centre, high},
                    {centre - 3, high},
                    {centre + 3, high}},
                   one.color, 1.2, "whisker");
    }
    svg.polyline(pixels, one.color, 2, "series", one.dash);
    if (!one.markers) continue;
    for (size_t i = 0; i < pixels.size(); ++i) {
      draw_marker(
          svg, pixels[i], one.marker, 7, one.color, "point",
          i < one.tooltips.size() ? one.tooltips[i] : point_tooltip(one.name, one.points[i]));
    }
  }

  if (!axes.label_line_ends) return;
  std::vector<double> placed;  // the y of each name drawn
  for (const Series& one : series) {
    if (one.points.empty()) continue;
    const Point last{x(to_x(one.points.back().x)), y(to_y(one.points.back().y))};
    const bool collides = std::any_of(placed.begin(), placed.end(),
                                      [&](double other) { return std::abs(other - last.y) < 12; });
    if (collides) continue;
    placed.push_back(last.y);
    svg.text(last.x + 8, last.y, one.name,
             {.size = 10, .middle_baseline = true, .fill = one.color});
  }
}

}  // namespace tinyenc::plot
