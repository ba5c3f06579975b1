// Figure 2 of the seed article, drawn from the table tinyenc uses: a few dimensions of a
// position encoding as curves over the positions (fast ones tell neighbours apart, slow ones
// keep distant positions distinct), and the whole table as a heatmap, positions x dimensions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tinyenc::plot {

struct PositionEncodingCurve {
  int64_t dimension = 0;
  std::string label;  // legend text: "dim 0: sin, period 6.3"
};

struct PositionEncodingFigure {
  std::string title;
  int64_t positions = 0, d_model = 0;
  std::vector<float> values;  // [positions, d_model]
  std::vector<PositionEncodingCurve> curves;
};

// Beyond this many values the heatmap is too large to be worth a file (about 10 MB of SVG).
constexpr int64_t kMaxHeatmapCells = int64_t{1} << 17;

// The SVG document: the curves on top, the heatmap (positions x d_model <rect class="cell">)
// below. Throws std::invalid_argument on inconsistent sizes or more than kMaxHeatmapCells.
std::string draw_position_encoding_figure(const PositionEncodingFigure& figure);

}  // namespace tinyenc::plot
