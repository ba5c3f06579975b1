// Text shared by the reports of `order` and its experiments: aligned tables, CSV fields and
// floats spelt as short as they read back.
#pragma once

#include <string>
#include <vector>

namespace tinyenc::cli::order {

// Rows of cells as an aligned text table, indented by two spaces (wide characters count two).
std::string render_table(const std::vector<std::vector<std::string>>& rows);
// A CSV field, quoted when it holds a comma, a quote or a line break.
std::string csv_field(const std::string& text);
// Shortest text that reads back as the same float32.
std::string shortest_float(double value);
// A distance in a table: "0" when exactly 0, four decimals ("0.0507"), or one significant digit
// and an exponent ("8.3e-15") below `exponent_below`, so that rounding-level values show as
// such instead of as 0.0000.
std::string distance_text(double value, double exponent_below);

}  // namespace tinyenc::cli::order
