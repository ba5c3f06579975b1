#include "plot/shift_figure.h"

#include <tinyenc/position_encoding.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "plot/axis.h"
#include "plot/color.h"
#include "plot/line_chart.h"
#include "plot/svg.h"
#include "plot/text_metrics.h"

namespace tinyenc::plot {
namespace {

constexpr double kLeft = 80;
constexpr double kTop = 96;
constexpr double kPlotWidth = 440;
constexpr double kPlotHeight = 280;
constexpr double kLabelGap = 36;   // between the plot's right edge and the labels' text
constexpr double kSample = 22;     // a label's stretch of its line, left of its text
constexpr double kLabelLine = 15;  // vertical distance between two labels

bool relative_kind(const std::string& kind) {
  const PositionEncodingDescription* description = find_position_encoding_description(kind);
  return description && description->relative;
}

std::string short_number(double value) {
  if (value == 0) return "0";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2g", value);
  return buffer;
}

// What a line's label says besides its name: its largest value, exactness, where it stops.
std::string label_of(const ShiftCurve& curve) {
  double largest = 0;
  bool any = false;
  std::optional<double> first_cannot;
  for (size_t i = 0; i < curve.distances.size(); ++i) {
    if (curve.distances[i]) {
      largest = std::max(largest, *curve.distances[i]);
      any = true;
    } else if (!first_cannot) {
      first_cannot = curve.offsets[i];
    }
  }
  std::string label = curve.name + " (" + curve.position_encoding + ")";
  if (!any) return label + ": cannot at any K (table too short)";
  if (largest == 0) {
    label += ": 0, exactly";
  } else if (relative_kind(curve.position_encoding)) {
    label += ": \u2264 " + short_number(largest) + " (rounding)";
  } else {
    label += ": up to " + short_number(largest);
  }
  if (first_cannot) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "; cannot at K \u2265 %g (table ends)", *first_cannot);
    label += buffer;
  }
  return label;
}

}  // namespace

std::string draw_shift_figure(const std::vector<ShiftCurve>& curves, const std::string& subtitle) {
  const std::string title =
      "Shift invariance: how far the output moves when every position moves by K";
  std::vector<Series> series;
  double largest = 0, smallest_k = 0, largest_k = 0;
  bool first_k = true;
  for (size_t m = 0; m < curves.size(); ++m) {
    const ShiftCurve& curve = curves[m];
    bool kind_seen = false;
    for (size_t earlier = 0; earlier < m; ++earlier) {
      kind_seen = kind_seen || curves[earlier].position_encoding == curve.position_encoding;
    }
    Series one;
    one.name = curve.name + " (" + curve.position_encoding + ")";
    one.color = kind_seen ? series_color(m) : position_encoding_color(curve.position_encoding);
    // The kind's marker and dash, as in the other figures; lines on top of each other at 0
    // stay apart by them.
    const SeriesStyle style =
        kind_seen ? series_style(m) : position_encoding_style(curve.position_encoding);
    one.marker = style.marker;
    one.dash = style.dash;
    for (size_t i = 0; i < curve.offsets.size(); ++i) {
      const double k = curve.offsets[i];
      smallest_k = first_k ? k : std::min(smallest_k, k);
      largest_k = first_k ? k : std::max(largest_k, k);
      first_k = false;
      if (!curve.distances[i]) continue;
      one.points.push_back({k, *curve.distances[i]});
      largest = std::max(largest, *curve.distances[i]);
    }
    series.push_back(std::move(one));
  }

  // Labels to the right of the plot: as wide as the widest.
  std::vector<std::string> labels;
  double widest = 0;
  for (const ShiftCurve& curve : curves) {
    labels.push_back(label_of(curve));
    widest = std::max(widest, text_width(labels.back(), 11));
  }
  const double width = std::max({kLeft + kPlotWidth + kLabelGap + widest + 16,
                                 text_width(title, 15) + 40, text_width(subtitle, 11) + 40});
  const double labels_height = kLabelLine * static_cast<double>(curves.size());
  const double height = kTop + std::max(kPlotHeight, labels_height) + 60;
  SvgDocument svg(static_cast<int>(std::ceil(width)), static_cast<int>(std::ceil(height)));
  svg.text(20, 26, title, {.size = 15, .bold = true});
  svg.text(20, 46, subtitle, {.size = 11, .fill = "#555"});
  svg.text(20, 64,
           "Relative kinds (rope, alibi, relative) see only i \u2212 j: their lines lie at 0, "
           "alibi and relative exactly, rope within float rounding.",
           {.size = 11, .fill = "#555"});
  svg.text(20, 80,
           "Absolute kinds (sinusoidal, learned) add other rows and move; a learned table has no "
           "rows past its end (no point).",
           {.size = 11, .fill = "#555"});

  const Box area{kLeft, kTop, kPlotWidth, kPlotHeight};
  LineChartAxes axes;
  axes.x_title = "position offset K (every position id + K)";
  axes.y_title = "cosine distance to K = 0";
  // A log axis when the offsets span a factor of 8 or more (1, 2, 4, ... 128), linear otherwise.
  axes.log_x = smallest_k > 0 && largest_k / smallest_k >= 8;
  for (const ShiftCurve& curve : curves) {
    for (double k : curve.offsets) {
      if (std::find(axes.x_ticks.begin(), axes.x_ticks.end(), k) == axes.x_ticks.end()) {
        axes.x_ticks.push_back(k);
      }
    }
  }
  std::sort(axes.x_ticks.begin(), axes.x_ticks.end());
  axes.x_low = smallest_k;
  axes.x_high = largest_k;
  if (axes.x_low == axes.x_high) {  // one K: frame it
    axes.x_low = axes.log_x ? smallest_k / 2 : smallest_k - 1;
    axes.x_high = axes.log_x ? smallest_k * 2 : smallest_k + 1;
  }
  // Linear y from 0, so that 0 looks like 0 and rounding-level values sit on it.
  axes.y_low = 0;
  axes.y_high = largest > 0 ? largest : 1;
  draw_line_chart(svg, area, series, axes);

  // The same y scale draw_line_chart framed (nice ticks over [0, y_high]), to put each label at
  // the height of its line's last point, then moved apart where they would overlap.
  const std::vector<double> ticks = nice_ticks(axes.y_low, axes.y_high);
  const LinearScale y{ticks.front(), ticks.back(), area.bottom(), area.y};
  const auto axis_x = [&](double k) { return axes.log_x ? std::log10(k) : k; };
  const LinearScale x{axis_x(axes.x_low), axis_x(axes.x_high), area.x, area.right()};
  struct Placed {
    double y;
    size_t curve;
    std::optional<Point> end;  // the line's last point, in pixels
  };
  std::vector<Placed> placed;
  for (size_t m = 0; m < curves.size(); ++m) {
    const std::vector<Point>& points = series[m].points;
    if (points.empty()) {
      placed.push_back({area.y, m, std::nullopt});
    } else {
      const Point end{x(axis_x(points.back().x)), y(points.back().y)};
      placed.push_back({end.y, m, end});
    }
  }
  std::stable_sort(placed.begin(), placed.end(),
                   [](const Placed& a, const Placed& b) { return a.y < b.y; });
  for (size_t i = 1; i < placed.size(); ++i) {
    placed[i].y = std::max(placed[i].y, placed[i - 1].y + kLabelLine);
  }
  // Labels pushed below the plot's bottom move up, each only as far as the one below it needs.
  if (!placed.empty()) {
    placed.back().y = std::min(placed.back().y, area.bottom() + 4);
    for (size_t i = placed.size() - 1; i-- > 0;) {
      placed[i].y = std::min(placed[i].y, placed[i + 1].y - kLabelLine);
    }
  }
  svg.open_group("direct-labels");
  for (const Placed& label : placed) {
    const double left = area.right() + kLabelGap;
    const Series& line = series[label.curve];
    const double sample = left - 6 - kSample;
    // A leader from the line's end to its label: labels moved apart, or a line that stops early.
    if (label.end) svg.line(*label.end, {sample - 2, label.y}, "#aaa", 0.8, "2,2");
    // A stretch of the line with its marker, as a legend shows it.
    svg.polyline({{sample, label.y}, {sample + kSample, label.y}}, line.color, 2, "legend-line",
                 line.dash);
    draw_marker(svg, {sample + kSample / 2, label.y}, line.marker, 7, line.color);
    svg.text(left, label.y, labels[label.curve], {.size = 11, .middle_baseline = true});
  }
  svg.close_group();
  return svg.document();
}

}  // namespace tinyenc::plot
