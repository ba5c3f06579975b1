// The figure of `tinyenc order --extrapolate`: accuracy against sentence length, one line per
// model in its PE kind's colour, marker shape and dash pattern (position_encoding_style, as in
// the other figures) so that models at the same accuracy stay apart, and dotted vertical marks at
// the models' length limits and the longest training sentence when known, labelled above the
// plot. A model that cannot run a length has no point there: its line ends.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "plot/svg.h"

namespace tinyenc::plot {

struct AccuracyCurve {
  std::string name;               // the model
  std::string position_encoding;  // its kind: colour, marker and dash
  std::vector<Point> points;      // x: tokens (a bucket's middle), y: accuracy in [0, 1]
  std::optional<double> limit;    // the most tokens it runs
  std::optional<double> trained;  // the longest training sentence, in tokens
};

struct ExtrapolationFigure {
  std::string subtitle;
  std::vector<AccuracyCurve> curves;
  double x_low = 0, x_high = 1;  // the lengths to show
};

std::string draw_extrapolation_figure(const ExtrapolationFigure& figure);

}  // namespace tinyenc::plot
