// Figure 1 of the seed article, drawn from a real model: the attention probabilities of one
// layer, head by head, for a sentence and for a reordering of it, side by side. Without a
// position encoding the second matrix is the first with its rows and columns permuted; a third
// panel can put them back in the first sentence's token order, where an order-blind model shows
// exactly the first matrix again.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tinyenc::plot {

struct AttentionPanel {
  std::string caption;               // above the column of heads: "A: 我打你"
  std::vector<std::string> tokens;   // T labels, query rows and key columns alike
  std::vector<float> probabilities;  // [heads, T, T]: row = query, column = key
};

// A panel that cannot be drawn: its column keeps its place and says why, so that it is never
// silently gone.
struct UndrawnPanel {
  std::string caption;
  std::string why;
};

struct AttentionFigure {
  std::string title;
  std::string note;  // one line under the title, may be empty
  int64_t heads = 0;
  std::vector<AttentionPanel> panels;  // drawn left to right
  std::vector<UndrawnPanel> undrawn;   // after them, a note each in place of its matrices
};

// The SVG document: one heatmap (<rect class="cell"> each) per head and panel, so
// heads x sum(T * T) cells. Throws std::invalid_argument on inconsistent sizes.
std::string draw_attention_figure(const AttentionFigure& figure);

}  // namespace tinyenc::plot
