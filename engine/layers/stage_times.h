// Wall time per stage of the forward pass, for `tinyenc bench`; a Timed sub-layer adds its calls'
// time to one field, so the timing wraps the math from outside instead of interleaving with it.
#pragma once

#include <chrono>
#include <utility>

namespace tinyenc {

// Seconds spent per stage, accumulated over forward calls.
struct StageTimes {
  double embed = 0, qkv = 0, attention = 0, output_projection = 0, ffn = 0, norms = 0, head = 0;
  double total() const { return embed + qkv + attention + output_projection + ffn + norms + head; }
};

using Stage = double StageTimes::*;

// Where the stages of the pass in flight are summed; detached (null) when nobody is timing.
class StageClock {
 public:
  void attach(StageTimes* times) { times_ = times; }

  // Adds the wall time from construction to destruction to one stage.
  class Scope {
   public:
    Scope(StageTimes* times, Stage stage) : times_(times), stage_(stage) {
      if (times_) start_ = Clock::now();
    }
    ~Scope() {
      if (times_) times_->*stage_ += std::chrono::duration<double>(Clock::now() - start_).count();
    }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    using Clock = std::chrono::steady_clock;
    StageTimes* times_;
    Stage stage_;
    Clock::time_point start_;
  };

  Scope time(Stage stage) const { return Scope(times_, stage); }

 private:
  StageTimes* times_ = nullptr;
};

// A sub-layer whose every call counts towards one stage.
template <class Layer>
class Timed {
 public:
  template <class... Args>
  Timed(const StageClock& clock, Stage stage, Args&&... args)
      : layer_(std::forward<Args>(args)...), clock_(&clock), stage_(stage) {}

  template <class... Args>
  void operator()(Args&&... args) {
    const StageClock::Scope scope = clock_->time(stage_);
    layer_(std::forward<Args>(args)...);
  }

  const Layer& layer() const { return layer_; }

 private:
  Layer layer_;
  const StageClock* clock_;
  Stage stage_;
};

}  // namespace tinyenc
