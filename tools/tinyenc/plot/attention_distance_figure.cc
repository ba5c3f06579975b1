#include "plot/attention_distance_figure.h"

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

constexpr double kMargin = 20;
constexpr double kTop = 96;        // titles and the legend above the panels
constexpr double kPanelLeft = 70;  // the y axis's labels and title
constexpr double kPanelWidth = 260;
constexpr double kPanelHeight = 170;
constexpr double kPanelTitle = 38;   // two lines above each panel
constexpr double kPanelBottom = 52;  // the x axis's labels and title

std::string fixed(double value, int decimals) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

}  // namespace

std::string draw_attention_distance_figure(const AttentionDistanceFigure& figure) {
  const std::string title = "Attention distance: share of attention by key offset j \u2212 i";
  const size_t panels = figure.panels.size();
  const size_t columns = std::min<size_t>(3, std::max<size_t>(1, panels));
  const size_t rows = (panels + columns - 1) / columns;
  const double cell_width = kPanelLeft + kPanelWidth + 24;
  const double cell_height = kPanelTitle + kPanelHeight + kPanelBottom;
  size_t layers = 0;
  double highest = 0;
  for (const AttentionDistancePanel& panel : figure.panels) {
    layers = std::max(layers, panel.layer_profiles.size());
    for (const auto& profile : panel.layer_profiles) {
      for (double share : profile) highest = std::max(highest, share);
    }
    for (double share : panel.uniform_profile) highest = std::max(highest, share);
  }
  const double width = std::max({kMargin + cell_width * static_cast<double>(columns),
                                 text_width(title, 15) + 40, text_width(figure.subtitle, 11) + 40});
  const double height = kTop + cell_height * static_cast<double>(rows) + 8;
  SvgDocument svg(static_cast<int>(std::ceil(width)), static_cast<int>(std::ceil(height)));
  svg.text(20, 26, title, {.size = 15, .bold = true});
  svg.text(20, 46, figure.subtitle, {.size = 11, .fill = "#555"});

  // The legend, once for every panel: a colour per layer, the dashed uniform baseline.
  double legend_x = 20;
  const double legend_y = 70;
  for (size_t layer = 0; layer < layers; ++layer) {
    const std::string name = "layer " + std::to_string(layer + 1) + " (mean of heads)";
    svg.line({legend_x, legend_y}, {legend_x + 24, legend_y}, series_color(layer), 2);
    draw_marker(svg, {legend_x + 12, legend_y}, MarkerShape::kCircle, 6, series_color(layer),
                "point", name);
    svg.text(legend_x + 30, legend_y, name, {.size = 11, .middle_baseline = true});
    legend_x += 30 + text_width(name, 11) + 18;
  }
  const std::string uniform_name = "uniform attention over each sentence";
  svg.line({legend_x, legend_y}, {legend_x + 24, legend_y}, "#777", 1.5, "5 4");
  svg.text(legend_x + 30, legend_y, uniform_name, {.size = 11, .middle_baseline = true});

  std::vector<double> x_ticks;
  for (int offset : figure.offsets) x_ticks.push_back(offset);
  const double x_low = figure.offsets.empty() ? -1 : figure.offsets.front();
  const double x_high = figure.offsets.empty() ? 1 : figure.offsets.back();
  // One y scale for every panel: the same height means the same share.
  const std::vector<double> y_ticks = nice_ticks(0, highest > 0 ? highest : 1);
  for (size_t p = 0; p < panels; ++p) {
    const AttentionDistancePanel& panel = figure.panels[p];
    const double cell_x = kMargin + cell_width * static_cast<double>(p % columns);
    const double cell_y = kTop + cell_height * static_cast<double>(p / columns);
    const Box area{cell_x + kPanelLeft, cell_y + kPanelTitle, kPanelWidth, kPanelHeight};
    svg.text(area.x, cell_y + 12, panel.name + " (" + panel.position_encoding + ")",
             {.size = 12, .bold = true});
    std::string distances = "mean |i\u2212j|:";
    for (size_t layer = 0; layer < panel.mean_distances.size(); ++layer) {
      distances += (layer ? ", L" : " L") + std::to_string(layer + 1) + " " +
                   fixed(panel.mean_distances[layer], 2);
    }
    distances += " (uniform " + fixed(panel.uniform_mean_distance, 2) + ")";
    svg.text(area.x, cell_y + 28, distances, {.size = 10, .fill = "#444"});

    std::vector<Series> series;
    for (size_t layer = 0; layer < panel.layer_profiles.size(); ++layer) {
      Series one;
      one.name = panel.name + " layer " + std::to_string(layer + 1);
      one.color = series_color(layer);
      for (size_t k = 0; k < figure.offsets.size() && k < panel.layer_profiles[layer].size(); ++k) {
        one.points.push_back({double(figure.offsets[k]), panel.layer_profiles[layer][k]});
      }
      series.push_back(std::move(one));
    }
    LineChartAxes axes;
    axes.x_title = "key offset j \u2212 i";
    axes.y_title = "share of attention";
    axes.x_low = x_low;
    axes.x_high = x_high;
    axes.y_low = y_ticks.front();
    axes.y_high = y_ticks.back();
    axes.integer_x = true;
    axes.x_ticks = x_ticks;
    draw_line_chart(svg, area, series, axes);
    // The uniform baseline on the same scales draw_line_chart used.
    const LinearScale x{x_low, x_high, area.x, area.right()};
    const LinearScale y{y_ticks.front(), y_ticks.back(), area.bottom(), area.y};
    for (size_t k = 1; k < figure.offsets.size() && k < panel.uniform_profile.size(); ++k) {
      svg.line({x(figure.offsets[k - 1]), y(panel.uniform_profile[k - 1])},
               {x(figure.offsets[k]), y(panel.uniform_profile[k])}, "#777", 1.5, "5 4");
    }
  }
  return svg.document();
}

}  // namespace tinyenc::plot
