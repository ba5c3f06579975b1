#include "plot/axis.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "plot/text_metrics.h"

namespace tinyenc::plot {
namespace {

constexpr double kLabelSize = 11;
constexpr const char* kAxisColor = "#444";
constexpr const char* kGridColor = "#e3e3e3";
constexpr double kTitleSize = 15, kTitleLine = 19;
constexpr double kNoteSize = 11, kNoteLine = 15;
constexpr double kTitleGap = 4;      // between the title and its notes
constexpr double kSampleWidth = 30;  // a legend's stretch of line

}  // namespace

std::vector<double> nice_ticks(double low, double high, int target) {
  if (!std::isfinite(low) || !std::isfinite(high)) return {0.0, 1.0};
  if (high < low) std::swap(low, high);
  if (high - low < 1e-300) {
    // A single value: frame it with one unit of its own magnitude on each side.
    const double pad = low == 0 ? 1.0 : std::abs(low) * 0.5;
    low -= pad;
    high += pad;
  }
  const double raw = (high - low) / std::max(target, 1);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double fraction = raw / magnitude;
  const double step = (fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10) * magnitude;
  const double first = std::floor(low / step + 1e-9) * step;
  const double last = std::ceil(high / step - 1e-9) * step;
  std::vector<double> ticks;
  for (double tick = first; tick <= last + step * 1e-6; tick += step) {
    ticks.push_back(std::abs(tick) < step * 1e-9 ? 0.0 : tick);
  }
  return ticks;
}

std::vector<double> log_ticks(double low, double high, int max_ticks) {
  if (!(low > 0) || !(high > 0) || !std::isfinite(low) || !std::isfinite(high)) return {1.0, 10.0};
  if (high < low) std::swap(low, high);
  if (high / low < 1.0 + 1e-9) {
    // A single value: frame it with a factor of two on each side.
    low /= 2;
    high *= 2;
  }
  const auto ticks_with = [&](const std::vector<double>& mantissas) {
    std::vector<double> ticks;
    const int first_decade = static_cast<int>(std::floor(std::log10(low) + 1e-9));
    const int last_decade = static_cast<int>(std::ceil(std::log10(high) - 1e-9));
    for (int decade = first_decade; decade <= last_decade; ++decade) {
      for (double mantissa : mantissas) {
        // Rounded to 12 significant digits: 0.1 * 3 should read as 0.3, not 0.30000000000000004.
        const double tick = std::stod(log_tick_label(mantissa * std::pow(10.0, decade)));
        if (ticks.empty() || tick > ticks.back()) ticks.push_back(tick);
      }
    }
    // Keep one tick at or below low and one at or above high.
    while (ticks.size() > 1 && ticks[1] <= low * (1 + 1e-9)) ticks.erase(ticks.begin());
    while (ticks.size() > 1 && ticks[ticks.size() - 2] >= high * (1 - 1e-9)) ticks.pop_back();
    return ticks;
  };
  std::vector<double> ticks = ticks_with({1, 2, 5});
  if (static_cast<int>(ticks.size()) > max_ticks) ticks = ticks_with({1});
  return ticks;
}

std::string log_tick_label(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.12g", value);
  return buffer;
}

std::string tick_label(double value, double step) {
  char buffer[32];
  if (value == 0) return "0";
  if (std::abs(step) < 1e-3) {
    // Enough digits to tell neighbouring ticks apart: 1.5e-04 next to 2.0e-04.
    const int digits = static_cast<int>(std::floor(std::log10(std::abs(value))) -
                                        std::floor(std::log10(std::abs(step)) + 1e-9));
    std::snprintf(buffer, sizeof buffer, "%.*e", std::clamp(digits, 0, 6), value);
  } else {
    const int decimals =
        std::max(0, static_cast<int>(std::ceil(-std::log10(std::abs(step)) - 1e-9)));
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  }
  return buffer;
}

void draw_y_axis(SvgDocument& svg, const Box& area, const LinearScale& scale,
                 const std::vector<double>& ticks, std::string_view title,
                 const std::vector<std::string>& labels) {
  const double step = ticks.size() > 1 ? ticks[1] - ticks[0] : 1.0;
  double widest = 0;
  for (size_t i = 0; i < ticks.size(); ++i) {
    const double tick = ticks[i];
    const double y = scale(tick);
    svg.line({area.x, y}, {area.right(), y}, kGridColor);
    const std::string label = i < labels.size() ? labels[i] : tick_label(tick, step);
    svg.text(area.x - 6, y, label,
             {.size = kLabelSize, .anchor = Anchor::kEnd, .middle_baseline = true});
    widest = std::max(widest, label.size() * kLabelSize * 0.6);
  }
  svg.line({area.x, area.y}, {area.x, area.bottom()}, kAxisColor);
  if (!title.empty()) {
    const double x = area.x - widest - 18;
    const double y = area.y + area.height / 2;
    svg.text(x, y, title, {.size = 12, .anchor = Anchor::kMiddle, .rotate = -90});
  }
}

void draw_x_axis(SvgDocument& svg, const Box& area, const LinearScale& scale,
                 const std::vector<double>& ticks, std::string_view title,
                 const std::vector<std::string>& labels) {
  const double step = ticks.size() > 1 ? ticks[1] - ticks[0] : 1.0;
  svg.line({area.x, area.bottom()}, {area.right(), area.bottom()}, kAxisColor);
  for (size_t i = 0; i < ticks.size(); ++i) {
    const double x = scale(ticks[i]);
    svg.line({x, area.bottom()}, {x, area.bottom() + 4}, kAxisColor);
    svg.text(x, area.bottom() + 16, i < labels.size() ? labels[i] : tick_label(ticks[i], step),
             {.size = kLabelSize, .anchor = Anchor::kMiddle});
  }
  if (!title.empty()) {
    svg.text(area.x + area.width / 2, area.bottom() + 34, title,
             {.size = 12, .anchor = Anchor::kMiddle});
  }
}

void draw_color_legend(SvgDocument& svg, const Box& area,
                       const std::function<std::string(double)>& color, double low, double high,
                       std::string_view title) {
  constexpr int kSteps = 32;
  const double step_height = area.height / kSteps;
  svg.open_group("legend", true);
  for (int i = 0; i < kSteps; ++i) {
    // Top is the high end.
    const double value = high - (i + 0.5) / kSteps * (high - low);
    svg.rect(area.x, area.y + i * step_height, area.width, step_height + 0.5, color(value));
  }
  svg.close_group();
  const LinearScale scale{low, high, area.bottom(), area.y};
  std::vector<double> marks = {high, low};
  if (low < 0 && high > 0) marks.push_back(0.0);
  for (double mark : marks) {
    svg.line({area.right(), scale(mark)}, {area.right() + 3, scale(mark)}, kAxisColor);
    svg.text(area.right() + 5, scale(mark), tick_label(mark, (high - low) / 4),
             {.size = 10, .middle_baseline = true});
  }
  if (!title.empty()) {
    svg.text(area.x, area.y - 16, title, {.size = 10});
  }
}

void draw_marker(SvgDocument& svg, Point centre, MarkerShape shape, double size,
                 std::string_view color, std::string_view css_class, std::string_view tooltip) {
  const double r = size / 2, x = centre.x, y = centre.y;
  switch (shape) {
    case MarkerShape::kCircle:
      svg.circle(centre, r, color, css_class, tooltip);
      return;
    case MarkerShape::kSquare: {
      const double h = r * 0.85;  // a square of the circle's area looks as heavy
      svg.polygon({{x - h, y - h}, {x + h, y - h}, {x + h, y + h}, {x - h, y + h}}, color,
                  css_class, tooltip);
      return;
    }
    case MarkerShape::kDiamond: {
      const double h = r * 1.2;
      svg.polygon({{x, y - h}, {x + h, y}, {x, y + h}, {x - h, y}}, color, css_class, tooltip);
      return;
    }
    case MarkerShape::kTriangleUp:
    case MarkerShape::kTriangleDown: {
      const double h = r * 1.25, s = shape == MarkerShape::kTriangleUp ? 1 : -1;
      svg.polygon({{x, y - s * h}, {x + h, y + s * h * 0.75}, {x - h, y + s * h * 0.75}}, color,
                  css_class, tooltip);
      return;
    }
    case MarkerShape::kPlus: {
      const double h = r * 1.2, t = r * 0.4;
      svg.polygon({{x - t, y - h},
                   {x + t, y - h},
                   {x + t, y - t},
                   {x + h, y - t},
                   {x + h, y + t},
                   {x + t, y + t},
                   {x + t, y + h},
                   {x - t, y + h},
                   {x - t, y + t},
                   {x - h, y + t},
                   {x - h, y - t},
                   {x - t, y - t}},
                  color, css_class, tooltip);
      return;
    }
  }
}

void draw_legend(SvgDocument& svg, double x, double y, const std::vector<LegendEntry>& entries) {
  for (size_t i = 0; i < entries.size(); ++i) {
    const LegendEntry& entry = entries[i];
    const double row = y + 18.0 * static_cast<double>(i);
    if (entry.line) {
      svg.polyline({{x, row}, {x + kSampleWidth, row}}, entry.color, 2, "legend-line", entry.dash);
      if (entry.with_marker) {
        draw_marker(svg, {x + kSampleWidth / 2, row}, entry.marker, 7, entry.color);
      }
      svg.text(x + kSampleWidth + 6, row, entry.name, {.size = 11, .middle_baseline = true});
    } else {
      svg.rect(x, row - 5, 14, 10, entry.color);
      svg.text(x + 20, row, entry.name, {.size = 11, .middle_baseline = true});
    }
  }
}

double legend_width(const std::vector<LegendEntry>& entries) {
  double widest = 0;
  for (const LegendEntry& entry : entries) {
    widest = std::max(widest, (entry.line ? kSampleWidth + 6 : 20) + text_width(entry.name, 11));
  }
  return widest;
}

namespace {

std::vector<std::string> heading_lines(const std::string& text, double size, double width) {
  return wrap_text(text, size, std::max(width, 10 * size));
}

}  // namespace

double heading_height(const Heading& heading, double width) {
  double height = 0;
  height +=
      kTitleLine * static_cast<double>(heading_lines(heading.title, kTitleSize, width).size());
  double notes = 0;
  for (const std::string& note : heading.notes) {
    notes += kNoteLine * static_cast<double>(heading_lines(note, kNoteSize, width).size());
  }
  if (height > 0 && notes > 0) height += kTitleGap;
  return height + notes;
}

double draw_heading(SvgDocument& svg, double x, double top, double width, const Heading& heading) {
  double y = top;
  for (const std::string& line : heading_lines(heading.title, kTitleSize, width)) {
    y += kTitleLine;
    svg.text(x, y - 4, line, {.size = kTitleSize, .bold = true});
  }
  bool first_note = true;
  for (const std::string& note : heading.notes) {
    for (const std::string& line : heading_lines(note, kNoteSize, width)) {
      if (first_note && y > top) y += kTitleGap;
      first_note = false;
      y += kNoteLine;
      svg.text(x, y - 4, line, {.size = kNoteSize, .fill = "#555"});
    }
  }
  return y - top;
}

}  // namespace tinyenc::plot
