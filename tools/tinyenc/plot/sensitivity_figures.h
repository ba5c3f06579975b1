// The summary pictures of `tinyenc order`: how much each model's output moves when the word
// order changes (a bar per model, coloured by its position-encoding kind), and how that change
// builds up through the layers (a line per model).
#pragma once

#include <string>
#include <vector>

namespace tinyenc::plot {

struct ModelSensitivity {
  std::string name;                     // the model folder's name
  std::string position_encoding;        // its PE kind: "none", "rope", ...
  double mean_cosine_distance = 0;      // over every sentence and perturbation
  std::vector<double> layer_distances;  // mean per layer, 0 (embeddings) .. L
};

// Bars of mean cosine distance, one per model (<rect class="bar">). `notes` are further lines
// under the subtitle (caveats such as how reorderings were aligned); like the title, they wrap.
std::string draw_sensitivity_summary(const std::vector<ModelSensitivity>& models,
                                     const std::string& subtitle,
                                     const std::vector<std::string>& notes = {});

// Mean distance per layer, one line per model (<polyline class="series">), each with the marker
// and dash of its PE kind; `notes` are further lines under the subtitle (what a "*" after a
// model's name means, say).
std::string draw_layer_distances(const std::vector<ModelSensitivity>& models,
                                 const std::string& subtitle,
                                 const std::vector<std::string>& notes = {});

}  // namespace tinyenc::plot
