#include "plot/sensitivity_figures.h"

#include <algorithm>
#include <cmath>

#include "plot/axis.h"
#include "plot/bar_chart.h"
#include "plot/color.h"
#include "plot/line_chart.h"
#include "plot/svg.h"
#include "plot/text_metrics.h"

namespace tinyenc::plot {
namespace {

constexpr double kLeft = 80;
constexpr double kRight = 24;
constexpr double kHeadingTop = 11;
constexpr double kBelowHeading = 24;
// Below this the title would wrap onto more lines than it is worth.
constexpr double kMinWidth = 560;

Heading heading_of(const std::string& title, const std::string& subtitle,
                   const std::vector<std::string>& notes) {
  Heading heading{title, {subtitle}};
  heading.notes.insert(heading.notes.end(), notes.begin(), notes.end());
  return heading;
}

// The top of the plot area below the heading.
double plot_top(const Heading& heading, double width) {
  return kHeadingTop + heading_height(heading, width - 40) + kBelowHeading;
}

}  // namespace

std::string draw_sensitivity_summary(const std::vector<ModelSensitivity>& models,
                                     const std::string& subtitle,
                                     const std::vector<std::string>& notes) {
  const std::string title = "Sensitivity to word order: mean cosine distance (1 \u2212 cos)";
  std::vector<Bar> bars;
  for (const ModelSensitivity& model : models) {
    bars.push_back({model.name, model.position_encoding, model.mean_cosine_distance,
                    position_encoding_color(model.position_encoding)});
  }
  const double plot_width = std::max(240.0, 110.0 * static_cast<double>(models.size()));
  const double plot_height = 260;
  const double label_height = bar_label_height(bars, plot_width);
  const double width = std::max(kLeft + plot_width + kRight, kMinWidth);
  const Heading heading = heading_of(title, subtitle, notes);
  const double top = plot_top(heading, width);
  const double height = top + plot_height + label_height + 16;
  SvgDocument svg(static_cast<int>(std::ceil(width)), static_cast<int>(std::ceil(height)));
  draw_heading(svg, 20, kHeadingTop, width - 40, heading);
  draw_bar_chart(svg, {kLeft, top, plot_width, plot_height}, bars,
                 "cosine distance of pooled outputs");
  return svg.document();
}

std::string draw_layer_distances(const std::vector<ModelSensitivity>& models,
                                 const std::string& subtitle,
                                 const std::vector<std::string>& notes) {
  const std::string title = "Where order enters: hidden-state distance per layer";
  std::vector<Series> series;
  std::vector<LegendEntry> legend;
  size_t max_layer = 1;
  for (size_t m = 0; m < models.size(); ++m) {
    const ModelSensitivity& model = models[m];
    Series one;
    one.name = model.name + " (" + model.position_encoding + ")";
    // Two models of one kind must still be told apart: the kind's colour for the first only.
    bool kind_seen = false;
    for (size_t earlier = 0; earlier < m; ++earlier) {
      kind_seen = kind_seen || models[earlier].position_encoding == model.position_encoding;
    }
    one.color = kind_seen ? series_color(m) : position_encoding_color(model.position_encoding);
    const SeriesStyle style =
        kind_seen ? series_style(m) : position_encoding_style(model.position_encoding);
    one.marker = style.marker;
    one.dash = style.dash;
    for (size_t layer = 0; layer < model.layer_distances.size(); ++layer) {
      one.points.push_back({static_cast<double>(layer), model.layer_distances[layer]});
    }
    if (!model.layer_distances.empty()) {
      max_layer = std::max(max_layer, model.layer_distances.size() - 1);
    }
    legend.push_back(legend_entry(one));
    series.push_back(std::move(one));
  }
  const double plot_width = 420, plot_height = 260;
  const double width = std::max(kLeft + plot_width + 24 + legend_width(legend) + kRight, kMinWidth);
  const Heading heading = heading_of(title, subtitle, notes);
  const double top = plot_top(heading, width);
  const double height =
      std::max(top + plot_height + 60, top + 18.0 * static_cast<double>(models.size()) + 20);
  SvgDocument svg(static_cast<int>(std::ceil(width)), static_cast<int>(std::ceil(height)));
  draw_heading(svg, 20, kHeadingTop, width - 40, heading);
  LineChartAxes axes;
  axes.x_title = "layer (0 = embeddings and position encoding)";
  axes.y_title = "cosine distance";
  axes.x_low = 0;
  axes.x_high = static_cast<double>(max_layer);
  axes.integer_x = true;
  // Distances start at 0: the axis does too, so "close to 0" looks it.
  double largest = 0;
  for (const ModelSensitivity& model : models) {
    for (double distance : model.layer_distances) largest = std::max(largest, distance);
  }
  if (largest > 0) axes.y_high = largest;
  draw_line_chart(svg, {kLeft, top, plot_width, plot_height}, series, axes);
  draw_legend(svg, kLeft + plot_width + 24, top + 8, legend);
  return svg.document();
}

}  // namespace tinyenc::plot
