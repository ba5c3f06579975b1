#include "plot/attention_figure.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "plot/axis.h"
#include "plot/color.h"
#include "plot/heatmap.h"
#include "plot/svg.h"
#include "plot/text_metrics.h"

namespace tinyenc::plot {
namespace {

constexpr double kMargin = 20;
constexpr double kPanelGap = 28;
constexpr double kHeadGap = 18;
constexpr double kTitleHeight = 56;
constexpr double kCaptionHeight = 22;
constexpr double kLegendWidth = 80;
constexpr double kCaptionSize = 13;
constexpr double kCaptionLineHeight = 17;
constexpr double kNoteSize = 12;
constexpr double kNoteWidth = 220;

Heatmap panel_heatmap(const AttentionPanel& panel, int64_t head, double cell, double scale_top) {
  const int64_t tokens = static_cast<int64_t>(panel.tokens.size());
  Heatmap heatmap;
  heatmap.rows = heatmap.columns = tokens;
  const auto begin = panel.probabilities.begin() + head * tokens * tokens;
  heatmap.values.assign(begin, begin + tokens * tokens);
  heatmap.cell_width = heatmap.cell_height = cell;
  heatmap.color = [scale_top](double value) { return sequential_color(value / scale_top); };
  heatmap.row_labels = panel.tokens;
  heatmap.column_labels = panel.tokens;
  heatmap.label_size = std::clamp(cell * 0.55, 7.0, 13.0);
  const std::vector<std::string>& labels = panel.tokens;
  heatmap.tooltip = [&labels](int64_t row, int64_t column, float value) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.4f", static_cast<double>(value));
    return labels[static_cast<size_t>(row)] + " \u2192 " + labels[static_cast<size_t>(column)] +
           ": " + buffer;
  };
  return heatmap;
}

}  // namespace

std::string draw_attention_figure(const AttentionFigure& figure) {
  if (figure.heads <= 0 || figure.panels.empty()) {
    throw std::invalid_argument("attention figure: no heads or no panels");
  }
  size_t longest = 1;
  for (const AttentionPanel& panel : figure.panels) {
    const size_t tokens = panel.tokens.size();
    if (tokens == 0 ||
        panel.probabilities.size() != static_cast<size_t>(figure.heads) * tokens * tokens) {
      throw std::invalid_argument("attention figure: panel '" + panel.caption +
                                  "' does not hold heads x tokens x tokens values");
    }
    longest = std::max(longest, tokens);
  }
  // The colour scale runs from 0 to the largest probability in the figure, not to 1: a model
  // with nearly uniform attention (1/T everywhere) would otherwise be a blank page.
  double scale_top = 0;
  for (const AttentionPanel& panel : figure.panels) {
    for (float value : panel.probabilities) scale_top = std::max(scale_top, double(value));
  }
  if (!(scale_top > 0)) scale_top = 1.0;
  // Matrices of about 220 px, cells neither specks nor slabs.
  const double cell = std::clamp(220.0 / static_cast<double>(longest), 6.0, 36.0);

  // Every panel of a column shares the label room of its widest heatmap.
  std::vector<double> label_width(figure.panels.size()), label_height(figure.panels.size());
  std::vector<double> panel_width(figure.panels.size());
  std::vector<std::vector<std::string>> captions(figure.panels.size());
  size_t caption_lines = 1;
  double height_per_head = 0;
  for (size_t p = 0; p < figure.panels.size(); ++p) {
    const Heatmap heatmap = panel_heatmap(figure.panels[p], 0, cell, scale_top);
    label_width[p] = heatmap.row_label_width();
    label_height[p] = heatmap.column_label_height();
    // A caption may run past its matrix up to a readable width, then it wraps.
    captions[p] =
        wrap_text(figure.panels[p].caption, kCaptionSize, std::max(heatmap.width(), 240.0));
    caption_lines = std::max(caption_lines, captions[p].size());
    double caption_width = 0;
    for (const std::string& line : captions[p]) {
      caption_width = std::max(caption_width, text_width(line, kCaptionSize));
    }
    panel_width[p] = label_width[p] + std::max(heatmap.width(), caption_width);
    height_per_head = std::max(height_per_head, label_height[p] + heatmap.height());
  }
  std::vector<std::vector<std::string>> undrawn_captions;
  for (const UndrawnPanel& panel : figure.undrawn) {
    undrawn_captions.push_back(wrap_text(panel.caption, kCaptionSize, kNoteWidth));
    caption_lines = std::max(caption_lines, undrawn_captions.back().size());
  }
  const double caption_height =
      kCaptionHeight + static_cast<double>(caption_lines - 1) * kCaptionLineHeight;
  const double head_label = 52;
  double width = kMargin + head_label;
  for (size_t p = 0; p < figure.panels.size(); ++p) {
    width += panel_width[p] + kPanelGap;
  }
  width += static_cast<double>(figure.undrawn.size()) * (kNoteWidth + kPanelGap);
  width += kLegendWidth + kMargin;
  width = std::max({width, text_width(figure.title, 15) + 2 * kMargin,
                    text_width(figure.note, 11) + 2 * kMargin});
  const double height = kTitleHeight + caption_height +
                        static_cast<double>(figure.heads) * (height_per_head + kHeadGap) + kMargin;

  SvgDocument svg(static_cast<int>(std::ceil(width)), static_cast<int>(std::ceil(height)));
  svg.text(kMargin, 26, figure.title, {.size = 15, .bold = true});
  if (!figure.note.empty()) svg.text(kMargin, 44, figure.note, {.size = 11, .fill = "#555"});

  double x = kMargin + head_label;
  for (size_t p = 0; p < figure.panels.size(); ++p) {
    const AttentionPanel& panel = figure.panels[p];
    for (size_t line = 0; line < captions[p].size(); ++line) {
      svg.text(x + label_width[p],
               kTitleHeight + 14 + static_cast<double>(line) * kCaptionLineHeight,
               captions[p][line], {.size = kCaptionSize, .bold = true});
    }
    for (int64_t head = 0; head < figure.heads; ++head) {
      const double top = kTitleHeight + caption_height +
                         static_cast<double>(head) * (height_per_head + kHeadGap) + label_height[p];
      const Heatmap heatmap = panel_heatmap(panel, head, cell, scale_top);
      draw_heatmap(svg, x + label_width[p], top, heatmap);
      if (p == 0) {
        svg.text(kMargin, top + heatmap.height() / 2, "head " + std::to_string(head + 1),
                 {.size = 12, .middle_baseline = true});
      }
    }
    x += panel_width[p] + kPanelGap;
  }
  // A panel that cannot be drawn: its caption, and why in its place.
  for (size_t u = 0; u < figure.undrawn.size(); ++u) {
    const UndrawnPanel& panel = figure.undrawn[u];
    for (size_t line = 0; line < undrawn_captions[u].size(); ++line) {
      svg.text(x, kTitleHeight + 14 + static_cast<double>(line) * kCaptionLineHeight,
               undrawn_captions[u][line], {.size = kCaptionSize, .bold = true});
    }
    double y = kTitleHeight + caption_height + 24;
    for (const std::string& line : wrap_text(panel.why, kNoteSize, kNoteWidth)) {
      svg.text(x, y, line, {.size = kNoteSize, .fill = "#a33"});
      y += kNoteSize * 1.4;
    }
    x += kNoteWidth + kPanelGap;
  }
  const double legend_top = kTitleHeight + caption_height + 20;
  draw_color_legend(
      svg, {x, legend_top, 14, std::min(180.0, height - legend_top - kMargin)},
      [scale_top](double value) { return sequential_color(value / scale_top); }, 0.0, scale_top,
      "probability");
  return svg.document();
}

}  // namespace tinyenc::plot
