// A heatmap: a grid of coloured cells, one per value, with optional labels for rows (left) and
// columns (above). Each cell is a <rect class="cell"> whose <title> shows its value on hover.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "plot/svg.h"

namespace tinyenc::plot {

struct Heatmap {
  int64_t rows = 0, columns = 0;
  std::vector<float> values;  // [rows, columns], row-major
  double cell_width = 10, cell_height = 10;
  std::function<std::string(double)> color;  // value -> "#rrggbb"
  std::vector<std::string> row_labels;       // empty, or one per row
  std::vector<std::string> column_labels;    // empty, or one per column
  double label_size = 11;
  // The hover text of cell (row, column); none when unset. Large maps leave it out: a <title>
  // per cell triples the file.
  std::function<std::string(int64_t row, int64_t column, float value)> tooltip;

  double width() const { return static_cast<double>(columns) * cell_width; }
  double height() const { return static_cast<double>(rows) * cell_height; }
  // Room the labels need left of and above the cells.
  double row_label_width() const;
  double column_label_height() const;
};

// Draws the cells with their top-left corner at (x, y), labels outside that corner.
// Throws std::invalid_argument when the values or labels do not match rows x columns.
void draw_heatmap(SvgDocument& svg, double x, double y, const Heatmap& heatmap);

}  // namespace tinyenc::plot
