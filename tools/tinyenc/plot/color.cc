#include "plot/color.h"

#include <tinyenc/position_encoding.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>

namespace tinyenc::plot {
namespace {

using Rgb = std::array<uint8_t, 3>;

std::string hex(const Rgb& rgb) {
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
  return buffer;
}

// Linear interpolation between evenly spaced stops, `t` in [0, 1].
template <size_t N>
std::string interpolate(const std::array<Rgb, N>& stops, double t) {
  if (std::isnan(t)) return "#bbbbbb";
  t = std::clamp(t, 0.0, 1.0) * (N - 1);
  const size_t low = std::min(static_cast<size_t>(t), N - 2);
  const double f = t - static_cast<double>(low);
  Rgb rgb;
  for (size_t c = 0; c < 3; ++c) {
    rgb[c] = static_cast<uint8_t>(
        std::lround(stops[low][c] + f * (static_cast<double>(stops[low + 1][c]) - stops[low][c])));
  }
  return hex(rgb);
}

// ColorBrewer "Purples", 9 classes.
constexpr std::array<Rgb, 9> kPurples = {{{252, 251, 253},
                                          {239, 237, 245},
                                          {218, 218, 235},
                                          {188, 189, 220},
                                          {158, 154, 200},
                                          {128, 125, 186},
                                          {106, 81, 163},
                                          {84, 39, 143},
                                          {63, 0, 125}}};

// ColorBrewer "RdBu", 9 classes, reversed so that negative is blue.
constexpr std::array<Rgb, 9> kBlueRed = {{{33, 102, 172},
                                          {67, 147, 195},
                                          {146, 197, 222},
                                          {209, 229, 240},
                                          {247, 247, 247},
                                          {253, 219, 199},
                                          {244, 165, 130},
                                          {214, 96, 77},
                                          {178, 24, 43}}};

// Tableau 10.
constexpr std::array<Rgb, 10> kSeries = {{{78, 121, 167},
                                          {242, 142, 43},
                                          {225, 87, 89},
                                          {118, 183, 178},
                                          {89, 161, 79},
                                          {237, 201, 72},
                                          {176, 122, 161},
                                          {255, 157, 167},
                                          {156, 117, 95},
                                          {186, 176, 172}}};

}  // namespace

std::string sequential_color(double value) { return interpolate(kPurples, value); }

std::string diverging_color(double value) {
  return interpolate(kBlueRed, std::isnan(value) ? value : (value + 1.0) / 2.0);
}

std::string series_color(size_t index) { return hex(kSeries[index % kSeries.size()]); }

std::string position_encoding_color(std::string_view kind) {
  const PositionEncodingDescription* description = find_position_encoding_description(kind);
  return description ? description->figure.color : "#bbbbbb";
}

}  // namespace tinyenc::plot
