// A line chart: each series a <polyline class="series"> with a <circle class="point"> per point
// (hover shows the value), over axes with nice ticks.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tools/tinyenc/plot/axis.h"
#include "tools/tinyenc/plot/svg.h"

namespace tinyenc::plot {

struct Series {
  std::string name;
  std::string color;
  std::vector<Point> points;  // in data units
  bool markers = true;
};

struct LineChartAxes {
  std::string x_title, y_title;
  // Data ranges to frame; when low == high the range is taken from the data.
  double x_low = 0, x_high = 0, y_low = 0, y_high = 0;
  bool integer_x = false;  // ticks only at whole numbers (layers, positions)
};

void draw_line_chart(SvgDocument& svg, const Box& area, const std::vector<Series>& series,
                     const LineChartAxes& axes);

}  // namespace tinyenc::plot
