#include "order/table_text.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "plot/text_metrics.h"

namespace tinyenc::cli::order {

std::string render_table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<int> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()), 0);
    for (size_t c = 0; c < row.size(); ++c) {
      widths[c] = std::max(widths[c], plot::display_columns(row[c]));
    }
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line = "  ";
    for (size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size()) {
        line.append(static_cast<size_t>(widths[c] - plot::display_columns(row[c]) + 2), ' ');
      }
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::string shortest_float(double value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, static_cast<float>(value));
  return std::string(buffer, result.ptr);
}

std::string distance_text(double value, double exponent_below) {
  if (value == 0) return "0";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, std::abs(value) < exponent_below ? "%.1e" : "%.4f", value);
  return buffer;
}

}  // namespace tinyenc::cli::order
