// Colours for the pictures: colour scales for heatmaps and a palette for series and bars.
// The scales are ColorBrewer's (Cynthia Brewer, colorbrewer2.org), readable in print and by
// most colour-blind readers; the purples echo the seed article's figures.
#pragma once

#include <string>
#include <string_view>

namespace tinyenc::plot {

// Sequential scale for values in [0, 1] (attention probabilities): white to deep purple.
// Values outside are clamped; NaN is grey.
std::string sequential_color(double value);

// Diverging scale for values in [-1, 1] (position-encoding tables): blue, white at 0, red.
std::string diverging_color(double value);

// The i-th of ten distinct colours for series and bars (repeats after ten).
std::string series_color(size_t index);

// A fixed colour per position-encoding kind (its description's figure style), so the same kind
// looks the same in every picture; unknown names get a neutral grey.
std::string position_encoding_color(std::string_view kind);

}  // namespace tinyenc::plot
