#include "plot/heatmap.h"

#include <algorithm>
#include <stdexcept>

#include "plot/text_metrics.h"

namespace tinyenc::plot {
namespace {

// A column label wider than its cell is turned to read upwards; the others stay level.
bool rotated(const Heatmap& heatmap, const std::string& label) {
  return text_width(label, heatmap.label_size) > heatmap.cell_width * 0.95;
}

double widest_label(const std::vector<std::string>& labels, double size) {
  double widest = 0;
  for (const std::string& label : labels) widest = std::max(widest, text_width(label, size));
  return widest;
}

}  // namespace

double Heatmap::row_label_width() const {
  return row_labels.empty() ? 0.0 : widest_label(row_labels, label_size) + 6;
}

double Heatmap::column_label_height() const {
  if (column_labels.empty()) return 0.0;
  double height = label_size;
  for (const std::string& label : column_labels) {
    if (rotated(*this, label)) height = std::max(height, text_width(label, label_size));
  }
  return height + 6;
}

void draw_heatmap(SvgDocument& svg, double x, double y, const Heatmap& heatmap) {
  if (heatmap.rows < 0 || heatmap.columns < 0 ||
      heatmap.values.size() != static_cast<size_t>(heatmap.rows * heatmap.columns) ||
      !heatmap.color) {
    throw std::invalid_argument("heatmap: values do not match rows x columns");
  }
  if ((!heatmap.row_labels.empty() &&
       heatmap.row_labels.size() != static_cast<size_t>(heatmap.rows)) ||
      (!heatmap.column_labels.empty() &&
       heatmap.column_labels.size() != static_cast<size_t>(heatmap.columns))) {
    throw std::invalid_argument("heatmap: one label per row and per column");
  }
  svg.open_group("heatmap", true);
  for (int64_t r = 0; r < heatmap.rows; ++r) {
    for (int64_t c = 0; c < heatmap.columns; ++c) {
      const float value = heatmap.values[static_cast<size_t>(r * heatmap.columns + c)];
      svg.rect(x + static_cast<double>(c) * heatmap.cell_width,
               y + static_cast<double>(r) * heatmap.cell_height, heatmap.cell_width,
               heatmap.cell_height, heatmap.color(value), "cell",
               heatmap.tooltip ? heatmap.tooltip(r, c, value) : "");
    }
  }
  svg.close_group();
  for (size_t r = 0; r < heatmap.row_labels.size(); ++r) {
    svg.text(x - 4, y + (static_cast<double>(r) + 0.5) * heatmap.cell_height, heatmap.row_labels[r],
             {.size = heatmap.label_size, .anchor = Anchor::kEnd, .middle_baseline = true});
  }
  for (size_t c = 0; c < heatmap.column_labels.size(); ++c) {
    const double centre = x + (static_cast<double>(c) + 0.5) * heatmap.cell_width;
    if (rotated(heatmap, heatmap.column_labels[c])) {
      svg.text(centre, y - 4, heatmap.column_labels[c],
               {.size = heatmap.label_size, .rotate = -90, .middle_baseline = true});
    } else {
      svg.text(centre, y - 5, heatmap.column_labels[c],
               {.size = heatmap.label_size, .anchor = Anchor::kMiddle});
    }
  }
}

}  // namespace tinyenc::plot
