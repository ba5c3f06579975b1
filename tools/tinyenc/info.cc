// `tinyenc info`: what this build and machine will run with and, given a model folder, what the
// model is (its family, shape, position encoding, tokenizer and weights).
#include <tinyenc/info.h>
#include <tinyenc/options.h>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "command.h"
#include "json_text.h"
#include "model_summary.h"
#include "options.h"

namespace tinyenc::cli {
namespace {

struct InfoOptions {
  std::string model;
  std::string dtype;
  bool json = false;
};

// Each dtype: whether this CPU runs it and, when not, why; and what --dtype auto picks.
nlohmann::json dtypes_json() {
  nlohmann::json runs = nlohmann::json::object();
  for (const std::string& dtype : dtype_names()) {
    const std::string missing = dtype_unsupported_reason(dtype);
    runs[dtype] = missing.empty() ? nlohmann::json(true) : nlohmann::json(missing);
  }
  const AutoDtype chosen = auto_dtype();
  return {{"runs", runs}, {"auto", {{"dtype", chosen.dtype}, {"reason", chosen.reason}}}};
}

int info(const InfoOptions& options) {
  const RuntimeInfo here = runtime_info();  // throws on a bad TINYENC_ISA
  // Loaded before anything is printed: a bad folder leaves one error line and nothing else.
  const std::string dtype = checked_dtype(options.dtype);
  if (!dtype.empty() && options.model.empty()) throw UsageError("--dtype: give a model (-m)");
  const std::optional<ModelInfo> model =
      options.model.empty() ? std::nullopt : std::optional(model_info(options.model, dtype));
  if (options.json) {
    nlohmann::json document = {{"version", version()},
                               {"pe_kernels",
                                {{"active", here.pe_kernels},
                                 {"compiled", here.compiled_pe_kernels},
                                 {"supported", here.supported_pe_kernels}}},
                               {"onednn", here.onednn_version},
                               {"cpu", here.cpu_model},
                               {"cpu_features", here.cpu_features},
                               {"dtypes", dtypes_json()},
                               {"threads", here.cpus},
                               {"linear_choice", here.linear_choice}};
    if (model) document["model"] = summarize_model(*model);
    std::printf("%s\n", json_text(document, 2).c_str());
    return 0;
  }
  const auto join = [](const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& name : names) {
      if (!out.empty()) out += ", ";
      out += name;
    }
    return out;
  };
  std::printf("tinyenc %s\n", version().c_str());
  std::printf("PE kernels:  %s (compiled: %s; this CPU: %s)\n", here.pe_kernels.c_str(),
              join(here.compiled_pe_kernels).c_str(), join(here.supported_pe_kernels).c_str());
  std::printf("oneDNN:      %s\n", here.onednn_version.c_str());
  std::printf("CPU:         %s\n", here.cpu_features.c_str());
  std::printf("CPU model:   %s\n", here.cpu_model.c_str());
  const nlohmann::json dtypes = dtypes_json();
  std::string runs, not_here;
  for (const auto& [name, verdict] : dtypes["runs"].items()) {
    if (verdict.is_boolean()) {
      runs += (runs.empty() ? "" : ", ") + name;
    } else {
      not_here += "; " + verdict.get<std::string>();
    }
  }
  std::printf("dtypes:      %s run here%s\n", runs.c_str(), not_here.c_str());
  std::printf("auto dtype:  %s (%s)\n", dtypes["auto"]["dtype"].get<std::string>().c_str(),
              dtypes["auto"]["reason"].get<std::string>().c_str());
  // What --threads 0, the default of `run`, gives: one per logical CPU this process may use.
  std::printf("threads:     %d (one per logical CPU)\n", here.cpus);
  std::printf("Linear:      %s\n", here.linear_choice.c_str());
  if (model) std::printf("\n%s", summary_table(*model).c_str());
  return 0;
}

}  // namespace

RunCommand add_info_command(CLI::App& root) {
  auto options = std::make_shared<InfoOptions>();
  CLI::App* command = root.add_subcommand(
      "info",
      "Show the chosen ISA, oneDNN version, CPU features, which dtypes run here and what "
      "--dtype auto picks, and threads; with -m, what a model folder is");
  command->add_option("-m,--model", options->model,
                      "Model folder: family, shape, position encoding and its parameters, "
                      "tokenizer, parameter count and weight bytes");
  add_dtype_option(*command, options->dtype);
  command->add_flag("--json", options->json, "One JSON document");
  return [options] { return info(*options); };
}

}  // namespace tinyenc::cli
