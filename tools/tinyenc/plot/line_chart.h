// A line chart: each series a <polyline class="series"> with a marker of class "point" per point
// (a <circle>, or a <polygon> for the other shapes; hover shows the value) and, when it has them, a
// <polyline class="whisker"> per point (an I-beam from low to high: a spread such as min..p99),
// over axes with nice ticks, linear or log10.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "plot/axis.h"
#include "plot/svg.h"

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
  // How the series looks besides its colour, so that lines on top of each other stay apart.
  MarkerShape marker = MarkerShape::kCircle;
  std::string dash = "";  // stroke-dasharray of the line ("6 3"); "" is solid
};

// The marker and dash of a series: fixed per position-encoding kind (the first word of `name`,
// so "rope bf16" looks like "rope"), as position_encoding_color fixes its colour; or the i-th of
// six distinct pairs.
struct SeriesStyle {
  MarkerShape marker = MarkerShape::kCircle;
  std::string dash = "";
};
SeriesStyle series_style(size_t index);
SeriesStyle position_encoding_style(std::string_view name);

// A legend entry that shows a stretch of `series`: its colour, dash and marker.
LegendEntry legend_entry(const Series& series);

struct LineChartAxes {
  std::string x_title, y_title;
  // Data ranges to frame; when low == high the range is taken from the data.
  double x_low = 0, x_high = 0, y_low = 0, y_high = 0;
  bool integer_x = false;  // ticks only at whole numbers (layers, positions)
  // log10 axes (sequence lengths, latencies); values must be > 0 (others are clamped to the
  // smallest positive one drawn).
  bool log_x = false, log_y = false;
  std::vector<double> x_ticks;  // the x ticks to label (the measured values); empty: chosen
  // Each series' name right of its last point, where it does not collide with a name already
  // placed (leave room right of the area; a legend still names them all).
  bool label_line_ends = false;
};

// The range of y values of `series` (points and whiskers; only values > 0 when `log`), for
// panels that share one y scale: put the union of theirs into each one's y_low and y_high.
// {0, 0} when there is none.
Interval y_data_range(const std::vector<Series>& series, bool log = false);

void draw_line_chart(SvgDocument& svg, const Box& area, const std::vector<Series>& series,
                     const LineChartAxes& axes);

}  // namespace tinyenc::plot
