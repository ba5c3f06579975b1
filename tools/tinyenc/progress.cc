#include "progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

namespace tinyenc::cli {
namespace {

constexpr auto kRedrawEvery = std::chrono::milliseconds(250);

// 1234567 -> "1.23M": a rate or a count that fits the line.
std::string short_number(double value) {
  char text[32];
  if (value >= 1e9) {
    std::snprintf(text, sizeof text, "%.2fG", value / 1e9);
  } else if (value >= 1e6) {
    std::snprintf(text, sizeof text, "%.2fM", value / 1e6);
  } else if (value >= 1e4) {
    std::snprintf(text, sizeof text, "%.1fk", value / 1e3);
  } else {
    std::snprintf(text, sizeof text, "%.0f", value);
  }
  return text;
}

std::string duration(double seconds) {
  const long long total = static_cast<long long>(seconds + 0.5);
  char text[32];
  if (total >= 3600) {
    std::snprintf(text, sizeof text, "%lld:%02lld:%02lld", total / 3600, total / 60 % 60,
                  total % 60);
  } else {
    std::snprintf(text, sizeof text, "%lld:%02lld", total / 60, total % 60);
  }
  return text;
}

}  // namespace

bool progress_default() { return ::isatty(STDERR_FILENO) == 1; }

Progress::Progress(bool enabled, uint64_t total_bytes)
    : enabled_(enabled), total_bytes_(total_bytes), start_(Clock::now()) {}

Progress::~Progress() { finish(); }

void Progress::update(uint64_t texts, int64_t tokens, uint64_t bytes) {
  if (!enabled_) return;
  const Clock::time_point now = Clock::now();
  if (drawn_ && now - last_draw_ < kRedrawEvery) return;
  last_draw_ = now;
  drawn_ = true;
  const double seconds = std::chrono::duration<double>(now - start_).count();
  const double rate = seconds > 0 ? 1.0 / seconds : 0.0;
  std::string line = "tinyenc: " + short_number(static_cast<double>(texts)) + " texts, " +
                     short_number(static_cast<double>(texts) * rate) + " texts/s, " +
                     short_number(static_cast<double>(tokens) * rate) + " tokens/s";
  if (total_bytes_ > 0) {
    const double done =
        std::min(1.0, static_cast<double>(bytes) / static_cast<double>(total_bytes_));
    char share[32];
    std::snprintf(share, sizeof share, ", %.1f%%", 100.0 * done);
    line += share;
    if (done > 0 && seconds > 0) line += ", ETA " + duration(seconds * (1.0 - done) / done);
  }
  // "\r" back to the start of the line, "\x1b[K" erases what a longer previous line left.
  std::fprintf(stderr, "\r%s\x1b[K", line.c_str());
  std::fflush(stderr);
}

void Progress::finish() {
  if (!enabled_ || !drawn_) return;
  std::fprintf(stderr, "\r\x1b[K");
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace tinyenc::cli
