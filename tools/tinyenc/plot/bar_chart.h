// A vertical bar chart from zero: one <rect class="bar"> per value, its label underneath and
// the value printed on top (small values stay readable even when the bar is a hairline).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "plot/axis.h"
#include "plot/svg.h"

namespace tinyenc::plot {

struct Bar {
  std::string label;     // first line under the bar
  std::string sublabel;  // second line, smaller (may be empty)
  double value = 0;      // >= 0
  std::string color;
};

// Height the labels under the bars need, for a plot area `width` wide.
double bar_label_height(const std::vector<Bar>& bars, double width);

// Bars inside `area` (axis and labels are drawn outside it: leave ~60 px left, and
// bar_label_height below).
void draw_bar_chart(SvgDocument& svg, const Box& area, const std::vector<Bar>& bars,
                    std::string_view y_title);

}  // namespace tinyenc::plot
