// A line chart: each series a <polyline class="series"> with a <circle class="point"> per point
// (hover shows the value) and, when it has them, a <polyline class="whisker"> per point (an
// I-beam from low to high: a spread such as min..p99), over axes with nice ticks, linear or log10.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tools/tinyenc/plot/axis.h"
#include "tools/tinyenc/plot/svg.h"

namespace tinyenc::plot {

// A range of y values around a point, in data units.
struct Interval {
  double low = 0, high = 0;
};

struct Series {
  std::string name;
  std::string color;
  std::vector<Point> points;  // in data units
  bool markers = true;
  std::vector<Interval> whiskers;     // empty, or one per point
  std::vector<std::string> tooltips;  // empty, or one per point (default "name: x, y")
};

struct LineChartAxes {
  std::string x_title, y_title;
  // Data ranges to frame; when low == high the range is taken from the data.
  double x_low = 0, x_high = 0, y_low = 0, y_high = 0;
  bool integer_x = false;  // ticks only at whole numbers (layers, positions)
  // log10 axes (sequence lengths, latencies); values must be > 0 (others are clamped to the
  // smallest positive one drawn).
  bool log_x = false, log_y = false;
  std::vector<double> x_ticks;  // the x ticks to label (the measured values); empty: chosen
};

void draw_line_chart(SvgDocument& svg, const Box& area, const std::vector<Series>& series,
                     const LineChartAxes& axes);

}  // namespace tinyenc::plot
