#include "plot/bar_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "plot/text_metrics.h"

namespace tinyenc::plot {
namespace {

constexpr double kLabelSize = 11;

double slot_width(const std::vector<Bar>& bars, double width) {
  return width / static_cast<double>(std::max<size_t>(bars.size(), 1));
}

// Labels wider than their slot are slanted.
bool slanted(const std::vector<Bar>& bars, double width) {
  for (const Bar& bar : bars) {
    if (text_width(bar.label, kLabelSize) > slot_width(bars, width) * 0.95) return true;
  }
  return false;
}

std::string value_label(double value) {
  char buffer[32];
  if (value != 0 && std::abs(value) < 1e-3) {
    std::snprintf(buffer, sizeof buffer, "%.1e", value);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.4f", value);
  }
  return buffer;
}

}  // namespace

double bar_label_height(const std::vector<Bar>& bars, double width) {
  if (!slanted(bars, width)) return 2 * kLabelSize + 14;
  // Slanted labels carry the sublabel too: "name (sublabel)".
  double widest = 0;
  for (const Bar& bar : bars) {
    widest = std::max(widest, text_width(bar.label + " (" + bar.sublabel + ")", kLabelSize));
  }
  return widest * 0.5 + kLabelSize + 14;  // sin 30 degrees
}

void draw_bar_chart(SvgDocument& svg, const Box& area, const std::vector<Bar>& bars,
                    std::string_view y_title) {
  double top = 0;
  for (const Bar& bar : bars) top = std::max(top, bar.value);
  const std::vector<double> ticks = nice_ticks(0, top > 0 ? top : 1.0);
  const LinearScale y{ticks.front(), ticks.back(), area.bottom(), area.y};
  draw_y_axis(svg, area, y, ticks, y_title);
  svg.line({area.x, area.bottom()}, {area.right(), area.bottom()}, "#444");

  const double slot = slot_width(bars, area.width);
  const double bar_width = std::min(slot * 0.6, 80.0);
  const bool slant = slanted(bars, area.width);
  for (size_t i = 0; i < bars.size(); ++i) {
    const Bar& bar = bars[i];
    const double centre = area.x + (static_cast<double>(i) + 0.5) * slot;
    const double value = std::max(bar.value, 0.0);
    const double bar_top = y(value);
    svg.rect(centre - bar_width / 2, bar_top, bar_width, area.bottom() - bar_top, bar.color, "bar",
             bar.label + ": " + value_label(bar.value));
    svg.text(centre, bar_top - 4, value_label(bar.value), {.size = 10, .anchor = Anchor::kMiddle});
    if (slant) {
      const std::string label =
          bar.sublabel.empty() ? bar.label : bar.label + " (" + bar.sublabel + ")";
      svg.text(centre, area.bottom() + 14, label,
               {.size = kLabelSize, .anchor = Anchor::kEnd, .rotate = -30});
    } else {
      svg.text(centre, area.bottom() + 16, bar.label,
               {.size = kLabelSize, .anchor = Anchor::kMiddle});
      if (!bar.sublabel.empty()) {
        svg.text(centre, area.bottom() + 30, bar.sublabel,
                 {.size = 10, .anchor = Anchor::kMiddle, .fill = "#666"});
      }
    }
  }
}

}  // namespace tinyenc::plot
