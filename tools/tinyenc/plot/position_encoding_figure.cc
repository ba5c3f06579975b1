#include "tools/tinyenc/plot/position_encoding_figure.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "tools/tinyenc/plot/axis.h"
#include "tools/tinyenc/plot/color.h"
#include "tools/tinyenc/plot/heatmap.h"
#include "tools/tinyenc/plot/line_chart.h"
#include "tools/tinyenc/plot/svg.h"
#include "tools/tinyenc/plot/text_metrics.h"

namespace tinyenc::plot {
namespace {

constexpr double kWidth = 760;
constexpr double kLeft = 70;
constexpr double kPlotWidth = 520;
constexpr double kLegendLeft = kLeft + kPlotWidth + 16;
constexpr double kCurvesTop = 60;
constexpr double kCurvesHeight = 220;
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
  const double heatmap_top = kCurvesTop + kCurvesHeight + 90;
  const double height = heatmap_top + heatmap.height() + 60;

  double widest_label = 0;
  for (const PositionEncodingCurve& curve : figure.curves) {
    widest_label = std::max(widest_label, text_width(curve.label, 11));
  }
  const double width = std::max(kWidth, kLegendLeft + 20 + widest_label + 20);
  SvgDocument svg(static_cast<int>(std::ceil(width)), static_cast<int>(std::ceil(height)));
  svg.text(20, 26, figure.title, {.size = 15, .bold = true});

  // Curves over positions, one per chosen dimension.
  std::vector<Series> series;
  std::vector<LegendEntry> legend;
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
    legend.push_back({one.name, one.color});
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
  draw_line_chart(svg, {kLeft, kCurvesTop, kPlotWidth, kCurvesHeight}, series, axes);
  draw_legend(svg, kLegendLeft, kCurvesTop + 8, legend);

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
