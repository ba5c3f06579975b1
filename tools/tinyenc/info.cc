// `tinyenc info`: what this build and machine will run with.
#include <cstdio>
#include <string>

#include "engine/isa.h"
#include "engine/onednn.h"
#include "tools/tinyenc/command.h"

namespace tinyenc::cli {

RunCommand add_info_command(CLI::App& root) {
  root.add_subcommand("info", "Show the chosen ISA, oneDNN version and threads");
  return [] {
    std::string compiled;
    std::string supported;
    for (Isa isa : compiled_isas()) {
      compiled += (compiled.empty() ? "" : ", ") + std::string(isa_name(isa));
      if (isa_supported(isa))
        supported += (supported.empty() ? "" : ", ") + std::string(isa_name(isa));
    }
    const Isa active = active_isa();  // throws on a bad TINYENC_ISA
    std::printf("tinyenc 0.1.0\n");
    std::printf("PE kernels:  %s (compiled: %s; this CPU: %s)\n",
                std::string(isa_name(active)).c_str(), compiled.c_str(), supported.c_str());
    std::printf("oneDNN:      %s\n", onednn_version().c_str());
    std::printf("threads:     %d\n", max_threads());
    return 0;
  };
}

}  // namespace tinyenc::cli
