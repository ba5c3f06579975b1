// The pictures of `tinyenc order --plot`: the seed article's figure 1 (attention of layer 1 on
// a sentence and on its reordering) for one model.
#pragma once

#include <filesystem>
#include <string>

#include "order/measurement.h"

namespace tinyenc::cli::order {

// A file name from a model name: letters, digits, '.', '-' and '_' kept, the rest '_'.
std::string file_stem(const std::string& name);

// `content` written to `path` as every output of the program is (tools/tinyenc/output.h).
void write_file(const std::filesystem::path& path, const std::string& content);

// Figure 1 of the seed article for one model: layer 1's heads on A, on B (the variant that moves
// units farthest), and B's matrices put back in A's token order. Too many tokens to read: a
// warning instead.
void plot_attention(MeasuredModel& model, const std::string& name, const Experiment& experiment,
                    const std::filesystem::path& file);

}  // namespace tinyenc::cli::order
