// The picture of `tinyenc order --shift`: how far each model's output moves when every position
// id moves by K, one line per model against K. The relative kinds' lines lie on top of each
// other at 0, so every line is named directly at its end, with its largest value.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tinyenc::plot {

struct ShiftCurve {
  std::string name;               // the model folder's name
  std::string position_encoding;  // its PE kind: "none", "rope", ...
  std::vector<double> offsets;    // K, ascending
  // Mean cosine distance at each K; nullopt where the model cannot number the positions (a
  // learned table too short): no point is drawn there, and the label says so.
  std::vector<std::optional<double>> distances;
};

// A <polyline class="series"> per model that has a measured K, markers of class "point", each
// model in its kind's colour, marker and dash (position_encoding_style, as in the other figures),
// and the models' names in a <g class="direct-labels">: one <text> each, after a stretch of the
// line (class "legend-line") with its marker.
std::string draw_shift_figure(const std::vector<ShiftCurve>& curves, const std::string& subtitle);

}  // namespace tinyenc::plot
