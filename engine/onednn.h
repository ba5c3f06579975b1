// The oneDNN runtime tinyenc runs on: version and threading facts for `tinyenc info`.
#pragma once

#include <string>

namespace tinyenc {

// "2.6.3 (commit ...)" as reported by the loaded libdnnl.
std::string onednn_version();

// Threads oneDNN and tinyenc's own OpenMP loops will use (one shared OpenMP pool).
int max_threads();

}  // namespace tinyenc
