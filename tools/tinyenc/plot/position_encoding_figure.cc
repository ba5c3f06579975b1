#include "plot/position_encoding_figure.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "plot/axis.h"
#include "plot/color.h"
#include "plot/heatmap.h"
#include "plot/line_chart.h"
#include "plot/svg.h"
#include "plot/text_metrics.h"

namespace tinyenc::plot {
namespace {

constexpr double kWidth = 760;
constexpr double kLeft = 70;
constexpr double kPlotWidth = 520;
constexpr double kLegendLeft = kLeft + kPlotWidth + 16;
constexpr double kHeadingTop = 11;
constexpr double kCurvesHeight = 220;
constexpr double kShiftHeight = 200;
constexpr double kPanelTitle = 26;  // a panel's title above its plot area
constexpr double kBelowPlot = 50;   // x-axis labels and title under a plot area
// Per-cell tooltips only while the file stays small.
constexpr int64_t kMaxTooltipCells = 4096;

}  // namespace

std::string draw_position_encoding_figure(const PositionEncodingFigure& figure) {
  const int64_t positions = figure.positions, d_model = figure.d_model;
  if (positions <= 0 || d_model <= 0 ||
      figure.values.size() != static_cast<size_t>(positions * d_model)) {
    throw std::invalid_argument(
        "position encoding figure: values do not match positions x d_model");
  }
  if (positions * d_model > kMaxHeatmapCells) {
    throw std::invalid_argument("position encoding figure: " + std::to_string(positions * d_model) +
                                " values, more than the " + std::to_string(kMaxHeatmapCells) +
                                " a picture holds");
  }
  for (const PositionEncodingCurve& curve : figure.curves) {
    if (curve.dimension < 0 || curve.dimension >= d_model) {
      throw std::invalid_argument("position encoding figure: curve dimension out of range");
    }
  }
  const ShiftDotProducts& shift = figure.shift;
  const bool shift_panel = !shift.starts.empty();
  if (shift_panel &&
      (shift.max_offset < 1 ||
       shift.dots.size() != shift.starts.size() * static_cast<size_t>(shift.max_offset + 1))) {
    throw std::invalid_argument(
        "position encoding figure: dot products do not match starts x (max_offset + 1)");
  }

  // The heatmap fills the plot width; positions run down, as rows of the table.
  const double cell_width = std::min(kPlotWidth / static_cast<double>(d_model), 40.0);
  const double cell_height = std::clamp(360.0 / static_cast<double>(positions), 0.5, 28.0);
  Heatmap heatmap;
  heatmap.rows = positions;
  heatmap.columns = d_model;
  heatmap.values = figure.values;
  heatmap.cell_width = cell_width;
  heatmap.cell_height = cell_height;
  heatmap.color = diverging_color;
  if (positions * d_model <= kMaxTooltipCells) {
    heatmap.tooltip = [](int64_t row, int64_t column, float value) {
      char buffer[64];
      std::snprintf(buffer, sizeof buffer, "position %lld, dim %lld: %.4f",
                    static_cast<long long>(row), static_cast<long long>(column),
                    static_cast<double>(value));
      return std::string(buffer);
    };
  }
  std::vector<LegendEntry> legend;
  for (size_t i = 0; i < figure.curves.size(); ++i) {
    legend.push_back({figure.curves[i].label, series_color(i)});
  }
  const double width = std::max(kWidth, kLegendLeft + legend_width(legend) + 20);
  Heading heading{figure.title, {figure.note}};
  if (shift_panel) heading.notes.push_back("each panel has its own y axis");
  const double curves_top = kHeadingTop + heading_height(heading, width - 40) + 12 + kPanelTitle;
  const double shift_top = curves_top + kCurvesHeight + kBelowPlot + kPanelTitle;
  const std::vector<std::string> shift_note =
      shift_panel ? wrap_text(shift.note, 11, width - kLeft - 20) : std::vector<std::string>{};
  const double shift_note_height = 15.0 * static_cast<double>(shift_note.size());
  const double heatmap_top =
      (shift_panel ? shift_top + kShiftHeight + kBelowPlot + shift_note_height
                   : curves_top + kCurvesHeight + kBelowPlot) +
      40;
  const double height = heatmap_top + heatmap.height() + 60;
  SvgDocument svg(static_cast<int>(std::ceil(width)), static_cast<int>(std::ceil(height)));
  draw_heading(svg, 20, kHeadingTop, width - 40, heading);

  // Curves over positions, one per chosen dimension.
  svg.text(kLeft, curves_top - 10, "a few dimensions over the positions",
           {.size = 12, .bold = true});
  std::vector<Series> series;
  for (size_t i = 0; i < figure.curves.size(); ++i) {
    Series one;
    one.name = figure.curves[i].label;
    one.color = series_color(i);
    one.markers = positions <= 40;
    for (int64_t pos = 0; pos < positions; ++pos) {
      one.points.push_back(
          {static_cast<double>(pos),
           figure.values[static_cast<size_t>(pos * d_model + figure.curves[i].dimension)]});
    }
    series.push_back(std::move(one));
  }
  LineChartAxes axes;
  axes.x_title = "position";
  axes.y_title = "value";
  axes.x_low = 0;
  axes.x_high = static_cast<double>(std::max<int64_t>(positions - 1, 1));
  axes.y_low = -1;
  axes.y_high = 1;
  axes.integer_x = true;
  draw_line_chart(svg, {kLeft, curves_top, kPlotWidth, kCurvesHeight}, series, axes);
  draw_legend(svg, kLegendLeft, curves_top + 8, legend);

  if (shift_panel) {
    svg.open_group("shift-panel");
    svg.text(kLeft, shift_top - 10,
             "PE(pos)\u00b7PE(pos+k) depends only on the offset k: a curve per pos, on top of "
             "each other",
             {.size = 12, .bold = true});
    std::vector<Series> dots;
    std::vector<LegendEntry> dot_legend;
    for (size_t s = 0; s < shift.starts.size(); ++s) {
      Series one;
      one.name = "pos " + std::to_string(shift.starts[s]);
      one.color = series_color(s);
      const SeriesStyle style = series_style(s);
      one.marker = style.marker;
      one.dash = style.dash;
      one.markers = shift.max_offset <= 40;
      for (int64_t k = 0; k <= shift.max_offset; ++k) {
        const double dot =
            shift.dots[s * static_cast<size_t>(shift.max_offset + 1) + static_cast<size_t>(k)];
        one.points.push_back({static_cast<double>(k), dot});
      }
      dot_legend.push_back(legend_entry(one));
      dots.push_back(std::move(one));
    }
    LineChartAxes dot_axes;
    dot_axes.x_title = "offset k";
    dot_axes.y_title = "PE(pos)\u00b7PE(pos+k)";
    dot_axes.x_low = 0;
    dot_axes.x_high = static_cast<double>(shift.max_offset);
    dot_axes.integer_x = true;
    draw_line_chart(svg, {kLeft, shift_top, kPlotWidth, kShiftHeight}, dots, dot_axes);
    draw_legend(svg, kLegendLeft, shift_top + 8, dot_legend);
    for (size_t line = 0; line < shift_note.size(); ++line) {
      svg.text(kLeft, shift_top + kShiftHeight + kBelowPlot + 4 + 15.0 * static_cast<double>(line),
               shift_note[line], {.size = 11, .fill = "#555"});
    }
    svg.close_group();
  }

  // The table.
  svg.text(kLeft, heatmap_top - 14, "the table: positions (rows) x dimensions (columns)",
           {.size = 12});
  draw_heatmap(svg, kLeft, heatmap_top, heatmap);
  const double bottom = heatmap_top + heatmap.height();
  // Whole-numbered ticks inside the table only.
  const auto shown = [](double tick, int64_t count) {
    return tick >= 0 && tick <= static_cast<double>(count - 1) && tick == std::floor(tick);
  };
  for (double tick : nice_ticks(0, static_cast<double>(d_model - 1), 6)) {
    if (!shown(tick, d_model)) continue;
    svg.text(kLeft + (tick + 0.5) * cell_width, bottom + 14, tick_label(tick, 1),
             {.size = 10, .anchor = Anchor::kMiddle});
  }
  svg.text(kLeft + heatmap.width() / 2, bottom + 32, "dimension",
           {.size = 12, .anchor = Anchor::kMiddle});
  for (double tick : nice_ticks(0, static_cast<double>(positions - 1), 6)) {
    if (!shown(tick, positions)) continue;
    svg.text(kLeft - 6, heatmap_top + (tick + 0.5) * cell_height, tick_label(tick, 1),
             {.size = 10, .anchor = Anchor::kEnd, .middle_baseline = true});
  }
  svg.text(kLeft - 40, heatmap_top + heatmap.height() / 2, "position",
           {.size = 12, .anchor = Anchor::kMiddle, .rotate = -90});
  draw_color_legend(svg,
                    {kLeft + heatmap.width() + 30, heatmap_top + 14, 14,
                     std::clamp(heatmap.height() - 14, 60.0, 200.0)},
                    diverging_color, -1.0, 1.0, "value");
  return svg.document();
}

}  // namespace tinyenc::plot
