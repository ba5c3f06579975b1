// One line on stderr, rewritten in place while a corpus runs: texts and texts/s, tokens/s and,
// when the size of the input is known, the share read and the time left. Redrawn at most four
// times a second, cleared at the end, so that what stays on the terminal is the results and
// the errors.
#pragma once

#include <chrono>
#include <cstdint>

namespace tinyenc::cli {

class Progress {
 public:
  // `enabled`: draw at all (by default when stderr is a terminal: progress_default()).
  // `total_bytes`: the input's size, 0 when unknown (a pipe): no percentage, no ETA.
  Progress(bool enabled, uint64_t total_bytes);
  ~Progress();  // clears the line
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Redraws, unless the last redraw was less than a quarter second ago.
  void update(uint64_t texts, int64_t tokens, uint64_t bytes);
  // Clears the line (nothing was drawn: nothing to clear).
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_;
  uint64_t total_bytes_;
  Clock::time_point start_, last_draw_;
  bool drawn_ = false;
};

// Whether progress is shown without --progress or --no-progress: when stderr is a terminal.
bool progress_default();

}  // namespace tinyenc::cli
