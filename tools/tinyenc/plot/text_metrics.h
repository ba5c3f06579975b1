// How wide a piece of UTF-8 text shows: in terminal columns (for aligned tables) and, estimated,
// in SVG pixels (for laying out labels; SVG has no text measurement without a renderer).
// East Asian wide characters (Chinese, Japanese, Korean, full-width forms) take two columns.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tinyenc::plot {

// Columns a terminal gives `text`; bytes that are not valid UTF-8 count one column each.
int display_columns(std::string_view text);

// Estimated width in pixels at `font_size` in a sans-serif font: about 0.6 em per narrow
// character and 1 em per wide one. Generous rather than tight, so labels do not overlap.
double text_width(std::string_view text, double font_size);

// `text` broken into lines of at most `max_width` pixels: at spaces (which are dropped at the
// breaks), between wide (CJK) characters, which need no space to break, and inside a word only
// when the word alone is wider than a line. Nothing is left out; "" gives no lines.
std::vector<std::string> wrap_text(std::string_view text, double font_size, double max_width);

// `text` cut at a character boundary so that it fits `max_width` pixels, ending in "…" when cut.
std::string fit_text(std::string_view text, double font_size, double max_width);

}  // namespace tinyenc::plot
