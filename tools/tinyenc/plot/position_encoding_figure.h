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

// The seed article's property of the sinusoidal table: the dot product PE(pos)·PE(pos+k)
// depends on the offset k only (it is the sum over the frequencies w_i of cos(k w_i)). Drawn as
// a curve over k per starting position pos; the curves lie on top of each other.
struct ShiftDotProducts {
  std::vector<int64_t> starts;  // the positions pos, a curve each
  int64_t max_offset = 0;       // k = 0 .. max_offset
  std::vector<double> dots;     // [starts, max_offset + 1]: PE(pos)·PE(pos+k)
  std::string note;             // a line under the panel: the numbers that show it
};

struct PositionEncodingFigure {
  std::string title;
  int64_t positions = 0, d_model = 0;
  std::vector<float> values;  // [positions, d_model]
  std::vector<PositionEncodingCurve> curves;
  ShiftDotProducts shift = {};  // no starts: no panel
  std::string note = "";        // a line under the title (may be empty)
};

// Beyond this many values the heatmap is too large to be worth a file (about 10 MB of SVG).
constexpr int64_t kMaxHeatmapCells = int64_t{1} << 17;

// The SVG document: the curves on top, the dot products under them (when given), the heatmap
// (positions x d_model <rect class="cell">) below. Throws std::invalid_argument on inconsistent
// sizes or more than kMaxHeatmapCells.
std::string draw_position_encoding_figure(const PositionEncodingFigure& figure);

}  // namespace tinyenc::plot
