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

}  // namespace tinyenc::cli::order
