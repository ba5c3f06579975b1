#include "tools/tinyenc/plot/sensitivity_figures.h"

#include <algorithm>
#include <cmath>

#include "tools/tinyenc/plot/axis.h"
#include "tools/tinyenc/plot/bar_chart.h"
#include "tools/tinyenc/plot/color.h"
#include "tools/tinyenc/plot/line_chart.h"
#include "tools/tinyenc/plot/svg.h"
#include "tools/tinyenc/plot/text_metrics.h"

namespace tinyenc::plot {
namespace {

constexpr double kLeft = 80;
constexpr double kTop = 70;
constexpr double kRight = 24;

double figure_width(const std::string& title, const std::string& subtitle, double plot_width) {
  return std::max(
      {kLeft + plot_width + kRight, text_width(title, 15) + 40, text_width(subtitle, 11) + 40});
}

void draw_titles(SvgDocument& svg, const std::string& title, const std::string& subtitle) {
  svg.text(20, 26, title, {.size = 15, .bold = true});
  svg.text(20, 46, subtitle, {.size = 11, .fill = "#555"});
}

}  // namespace

std::string draw_sensitivity_summary(const std::vector<ModelSensitivity>& models,
                                     const std::string& subtitle) {
  const std::string title = "Sensitivity to word order: mean cosine distance (1 \u2212 cos)";
  std::vector<Bar> bars;
  for (const ModelSensitivity& model : models) {
    bars.push_back({model.name, model.position_encoding, model.mean_cosine_distance,
                    position_encoding_color(model.position_encoding)});
  }
  const double plot_width = std::max(240.0, 110.0 * static_cast<double>(models.size()));
  const double plot_height = 260;
  const double label_height = bar_label_height(bars, plot_width);
  const double width = figure_width(title, subtitle, plot_width);
  const double height = kTop + plot_height + label_height + 16;
  SvgDocument svg(static_cast<int>(std::ceil(width)), static_cast<int>(std::ceil(height)));
  draw_titles(svg, title, subtitle);
  draw_bar_chart(svg, {kLeft, kTop, plot_width, plot_height}, bars,
                 "cosine distance of pooled outputs");
  return svg.document();
}

std::string draw_layer_distances(const std::vector<ModelSensitivity>& models,
                                 const std::string& subtitle,
                                 const std::vector<std::string>& notes) {
  const std::string title = "Where order enters: hidden-state distance per layer";
  std::vector<Series> series;
  std::vector<LegendEntry> legend;
  double widest_name = 0;
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
    for (size_t layer = 0; layer < model.layer_distances.size(); ++layer) {
      one.points.push_back({static_cast<double>(layer), model.layer_distances[layer]});
    }
    if (!model.layer_distances.empty()) {
      max_layer = std::max(max_layer, model.layer_distances.size() - 1);
    }
    legend.push_back({one.name, one.color});
    widest_name = std::max(widest_name, text_width(one.name, 11));
    series.push_back(std::move(one));
  }
  const double plot_width = 420, plot_height = 260;
  double width = figure_width(title, subtitle, plot_width + 40 + widest_name);
  for (const std::string& note : notes) width = std::max(width, text_width(note, 11) + 40);
  const double notes_top =
      std::max(kTop + plot_height + 60, kTop + 18.0 * static_cast<double>(models.size()) + 20);
  const double height = notes_top + 16.0 * static_cast<double>(notes.size());
  SvgDocument svg(static_cast<int>(std::ceil(width)), static_cast<int>(std::ceil(height)));
  draw_titles(svg, title, subtitle);
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
  draw_line_chart(svg, {kLeft, kTop, plot_width, plot_height}, series, axes);
  draw_legend(svg, kLeft + plot_width + 24, kTop + 8, legend);
  for (size_t n = 0; n < notes.size(); ++n) {
    svg.text(20, notes_top + 16.0 * static_cast<double>(n) + 4, notes[n],
             {.size = 11, .fill = "#555"});
  }
  return svg.document();
}

}  // namespace tinyenc::plot
