// The picture of `tinyenc bench --plot`: latency against sequence length, a line per
// position-encoding kind (median, with min..p99 whiskers), on log-log axes. A sweep that also
// varies the model, the batch size or the thread count gets a panel per combination, in two
// columns, each titled with what changed. The panels share one y scale (and the x values of
// the sweep), so that a panel's lines can be held against another's. The latency is what bench
// times: one forward pass of the whole [batch, seq] input, which the y axis and the heading say
// (per batch, or per sequence when every batch is 1).
//
// The width is fixed by the number of columns, so a figure can be laid beside another: one
// column is 654 pixels wide, each further one adds 490. Each row of panels is 320 pixels high,
// below a heading whose notes wrap (never cut) to the width.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tinyenc::plot {

struct LatencyMeasurement {
  std::string model;              // preset or folder
  std::string position_encoding;  // its PE kind: "none", "rope", ...
  int64_t batch = 1, seq = 1, threads = 1;
  double p50_ms = 0, min_ms = 0, p99_ms = 0;
};

// Panels (<g class="panel">) of one <polyline class="series"> per PE kind, a <circle
// class="point"> and a <polyline class="whisker"> per measurement. `subtitle` says where it was
// measured (CPU, ISA); what stays the same across the panels is added to it.
std::string draw_latency_figure(const std::vector<LatencyMeasurement>& measurements,
                                const std::string& subtitle);

}  // namespace tinyenc::plot
