// Axes of the charts: a linear scale from data to pixels, "nice" tick values (steps of 1, 2 or
// 5 times a power of ten) and their labels, and the axis lines, grid and titles drawn around a
// plot area.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "plot/svg.h"

namespace tinyenc::plot {

// A rectangle in pixels; y grows downwards as in SVG.
struct Box {
  double x = 0, y = 0, width = 0, height = 0;
  double right() const { return x + width; }
  double bottom() const { return y + height; }
};

// Maps [low, high] in data units onto [from, to] in pixels (to < from for a y axis).
struct LinearScale {
  double low = 0, high = 1, from = 0, to = 1;
  double operator()(double value) const {
    return high == low ? (from + to) / 2 : from + (value - low) / (high - low) * (to - from);
  }
};

// Tick values covering [low, high] with about `target` steps; the first tick is <= low and the
// last >= high, so a scale built on them frames all the data.
std::vector<double> nice_ticks(double low, double high, int target = 5);

// Tick values for a log10 axis covering [low, high] (both > 0): 1, 2 and 5 times powers of ten,
// or powers of ten alone when that would make more than `max_ticks`. As with nice_ticks, the
// first tick is <= low and the last >= high.
std::vector<double> log_ticks(double low, double high, int max_ticks = 10);

// The label of a tick on a log axis or at a measured value: "%g" ("0.05", "128", "2e+04").
std::string log_tick_label(double value);

// A tick label with the decimals `step` needs ("0.25", "40"); scientific ("2e-07") for steps
// below 0.001, where fixed decimals would get long.
std::string tick_label(double value, double step);

// The y axis on the left of `area`: tick labels, light horizontal grid lines, a rotated title.
// `labels`, when given, replace tick_label's (one per tick: a log axis positions its ticks at
// log10 of the values it shows).
void draw_y_axis(SvgDocument& svg, const Box& area, const LinearScale& scale,
                 const std::vector<double>& ticks, std::string_view title,
                 const std::vector<std::string>& labels = {});
// The x axis under `area`: ticks and labels at `ticks`, a title below.
void draw_x_axis(SvgDocument& svg, const Box& area, const LinearScale& scale,
                 const std::vector<double>& ticks, std::string_view title,
                 const std::vector<std::string>& labels = {});

// A vertical colour bar for a heatmap: `color` over [low, high], labelled at both ends and 0
// when 0 lies inside.
void draw_color_legend(SvgDocument& svg, const Box& area,
                       const std::function<std::string(double)>& color, double low, double high,
                       std::string_view title);

// The shape drawn at each point of a series. Lines that lie on top of each other are still told
// apart by their markers (and dashes), in colour and in grey print alike.
enum class MarkerShape { kCircle, kSquare, kDiamond, kTriangleUp, kTriangleDown, kPlus };

// One marker centred on `centre`, `size` pixels across, as a <circle> or a <polygon> with
// `css_class` and, when not empty, a <title> tooltip.
void draw_marker(SvgDocument& svg, Point centre, MarkerShape shape, double size,
                 std::string_view color, std::string_view css_class = "",
                 std::string_view tooltip = "");

// Series names with their colour swatches, one per line, starting at (x, y). An entry with
// `line` set shows a short stretch of its series instead: the line with its dash and marker.
struct LegendEntry {
  std::string name;
  std::string color;
  bool line = false;
  std::string dash = "";  // stroke-dasharray, "" for solid
  MarkerShape marker = MarkerShape::kCircle;
  bool with_marker = true;
};
void draw_legend(SvgDocument& svg, double x, double y, const std::vector<LegendEntry>& entries);
// Width draw_legend takes for `entries`.
double legend_width(const std::vector<LegendEntry>& entries);

// A figure's heading: a bold title and smaller grey notes under it, each wrapped to `width`,
// never cut: a long title takes two lines or more and what is drawn below moves down.
struct Heading {
  std::string title;
  std::vector<std::string> notes;  // empty ones are left out
};
// Height of the heading wrapped to `width`, from its top to below its last line.
double heading_height(const Heading& heading, double width);
// Draws the heading with its top-left corner at (x, top); returns heading_height.
double draw_heading(SvgDocument& svg, double x, double top, double width, const Heading& heading);

}  // namespace tinyenc::plot
