// The figure of `tinyenc order --attention-distance`: per model a panel of the share of attention
// against the offset j - i of key from query, one line per layer (the mean over its heads), over
// the dashed profile of attention spread evenly over each sentence. Every panel shares one y
// scale, so that ALiBi's peak at offset 0 and the flat profile without a position encoding
// compare at a glance.
#pragma once

#include <string>
#include <vector>

namespace tinyenc::plot {

struct AttentionDistancePanel {
  std::string name;               // the model
  std::string position_encoding;  // its kind
  // [layer][offset]: the share of attention at each offset, offsets as the figure's.
  std::vector<std::vector<double>> layer_profiles;
  std::vector<double> mean_distances;  // per layer
  std::vector<double> uniform_profile;
  double uniform_mean_distance = 0;
};

struct AttentionDistanceFigure {
  std::string subtitle;
  std::vector<int> offsets;  // the x values, e.g. -6 .. 6
  std::vector<AttentionDistancePanel> panels;
};

std::string draw_attention_distance_figure(const AttentionDistanceFigure& figure);

}  // namespace tinyenc::plot
