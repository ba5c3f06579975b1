#include "plot/latency_figure.h"

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
constexpr double kHeadingTop = 11;
constexpr double kBelowHeading = 16;
constexpr double kPlotWidth = 400;
constexpr double kPlotHeight = 240;
constexpr double kColumnGap = 90;   // room for the next panel's y-axis labels and title
constexpr double kPanelTitle = 24;  // above each plot area
constexpr double kBelow = 56;       // x-axis labels and title under each plot area
constexpr double kLegendWidth = 174;
constexpr size_t kColumns = 2;

// What a panel holds fixed: everything the sweep varies except the sequence length and PE kind.
struct PanelKey {
  std::string model;
  int64_t batch = 1, threads = 1;
  bool operator==(const PanelKey&) const = default;
};

std::string threads_text(int64_t threads) {
  return std::to_string(threads) + (threads == 1 ? " thread" : " threads");
}

template <typename T>
void add_unique(std::vector<T>& values, const T& value) {
  if (std::find(values.begin(), values.end(), value) == values.end()) values.push_back(value);
}

}  // namespace

std::string draw_latency_figure(const std::vector<LatencyMeasurement>& measurements,
                                const std::string& subtitle) {
  // Panels and kinds in order of first appearance: the order the sweep ran in.
  std::vector<PanelKey> panels;
  std::vector<std::string> kinds;
  for (const LatencyMeasurement& m : measurements) {
    add_unique(panels, PanelKey{m.model, m.batch, m.threads});
    add_unique(kinds, m.position_encoding);
  }
  if (panels.empty()) panels.push_back({});
  bool models_vary = false, batches_vary = false, threads_vary = false;
  for (const PanelKey& panel : panels) {
    models_vary = models_vary || panel.model != panels[0].model;
    batches_vary = batches_vary || panel.batch != panels[0].batch;
    threads_vary = threads_vary || panel.threads != panels[0].threads;
  }
  const auto describe = [&](const PanelKey& panel, bool varying) {
    std::vector<std::string> parts;
    if (models_vary == varying) parts.push_back(std::string("model ").append(panel.model));
    if (batches_vary == varying) parts.push_back("batch " + std::to_string(panel.batch));
    if (threads_vary == varying) parts.push_back(threads_text(panel.threads));
    std::string text;
    for (const std::string& part : parts) {
      if (!text.empty()) text += ", ";
      text += part;
    }
    return text;
  };

  bool every_batch_one = true;
  for (const PanelKey& panel : panels) every_batch_one = every_batch_one && panel.batch == 1;

  const size_t columns = std::min(panels.size(), kColumns);
  const size_t rows = (panels.size() + columns - 1) / columns;
  const double width =
      kLeft + static_cast<double>(columns) * (kPlotWidth + kColumnGap) - kColumnGap + kLegendWidth;
  Heading heading;
  heading.title = "Latency against sequence length, by position encoding";
  heading.notes.push_back(subtitle);
  std::string fixed = describe(panels[0], false);
  fixed += (fixed.empty() ? "" : "; ");
  fixed += "line: median (p50), whiskers: min to p99; log-log axes";
  if (panels.size() > 1) fixed += "; the panels share both axes";
  heading.notes.push_back(fixed);
  // bench times one forward pass of the whole [batch, seq] input: with batch > 1 that is the
  // batch's latency, not a sequence's.
  heading.notes.push_back(every_batch_one
                              ? "latency: one forward pass of one sequence (batch 1)"
                              : "latency: one forward pass of the whole batch (batch \u00d7 "
                                "sequence length tokens), not per sequence");
  const double top = kHeadingTop + heading_height(heading, width - 40) + kBelowHeading;
  const double height = top + static_cast<double>(rows) * (kPanelTitle + kPlotHeight + kBelow);
  SvgDocument svg(static_cast<int>(width), static_cast<int>(std::ceil(height)));
  draw_heading(svg, 20, kHeadingTop, width - 40, heading);

  // One y range for every panel, so that panels compare at a glance.
  double y_low = 0, y_high = 0;
  for (const LatencyMeasurement& m : measurements) {
    for (double value : {m.p50_ms, m.min_ms, m.p99_ms}) {
      if (!(value > 0) || !std::isfinite(value)) continue;
      y_low = y_low > 0 ? std::min(y_low, value) : value;
      y_high = std::max(y_high, value);
    }
  }

  for (size_t p = 0; p < panels.size(); ++p) {
    const PanelKey& panel = panels[p];
    const double column = static_cast<double>(p % columns), row = static_cast<double>(p / columns);
    const Box area{kLeft + column * (kPlotWidth + kColumnGap),
                   top + kPanelTitle + row * (kPanelTitle + kPlotHeight + kBelow), kPlotWidth,
                   kPlotHeight};
    const std::string title = describe(panel, true);
    svg.open_group("panel");
    if (!title.empty()) svg.text(area.x, area.y - 10, title, {.size = 12, .bold = true});
    std::vector<Series> series;
    LineChartAxes axes;
    for (const std::string& kind : kinds) {
      std::vector<const LatencyMeasurement*> points;
      for (const LatencyMeasurement& m : measurements) {
        if (m.position_encoding == kind && PanelKey{m.model, m.batch, m.threads} == panel) {
          points.push_back(&m);
        }
      }
      if (points.empty()) continue;
      std::stable_sort(points.begin(), points.end(),
                       [](const auto* a, const auto* b) { return a->seq < b->seq; });
      Series one;
      one.name = kind;
      one.color = position_encoding_color(kind);
      const SeriesStyle style = position_encoding_style(kind);
      one.marker = style.marker;
      one.dash = style.dash;
      for (const LatencyMeasurement* m : points) {
        const double seq = static_cast<double>(m->seq);
        one.points.push_back({seq, m->p50_ms});
        one.whiskers.push_back({m->min_ms, m->p99_ms});
        char numbers[128];
        std::snprintf(numbers, sizeof numbers, "seq %lld: p50 %.4g ms (min %.4g, p99 %.4g)",
                      static_cast<long long>(m->seq), m->p50_ms, m->min_ms, m->p99_ms);
        one.tooltips.push_back(kind + ", " + (title.empty() ? "" : title + ", ") + numbers);
        add_unique(axes.x_ticks, seq);
      }
      series.push_back(std::move(one));
    }
    std::sort(axes.x_ticks.begin(), axes.x_ticks.end());
    if (!axes.x_ticks.empty()) {
      // A little room at both ends, so the first and last whiskers clear the frame.
      axes.x_low = axes.x_ticks.front() / 1.2;
      axes.x_high = axes.x_ticks.back() * 1.2;
    }
    axes.x_title = "sequence length (tokens)";
    axes.y_title = every_batch_one ? "latency per sequence (ms)" : "latency per batch (ms)";
    axes.log_x = axes.log_y = true;
    if (y_high > 0) {
      axes.y_low = y_low;
      axes.y_high = y_high;
    }
    draw_line_chart(svg, area, series, axes);
    svg.close_group();
  }

  std::vector<LegendEntry> legend;
  for (const std::string& kind : kinds) {
    const SeriesStyle style = position_encoding_style(kind);
    legend.push_back({kind, position_encoding_color(kind), true, style.dash, style.marker});
  }
  draw_legend(svg, width - kLegendWidth + 24, top + kPanelTitle + 8, legend);
  return svg.document();
}

}  // namespace tinyenc::plot
