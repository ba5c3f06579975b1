// `tinyenc info`: what this build and machine will run with and, given a model folder, what the
// model is (its family, shape, position encoding, tokenizer and weights).
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/dtype.h"
#include "engine/encoder.h"
#include "engine/isa.h"
#include "engine/onednn.h"
#include "models/pipeline.h"
#include "tokenizer/load_tokenizer.h"
#include "tools/tinyenc/command.h"
#include "tools/tinyenc/json_text.h"
#include "tools/tinyenc/model_summary.h"
#include "tools/tinyenc/options.h"

namespace tinyenc::cli {
namespace {

struct InfoOptions {
  std::string model;
  std::string dtype;
  bool json = false;
};

// The folder's tokenizer, or null when it has none (such a model runs with --ids only).
std::unique_ptr<SubwordTokenizer> optional_tokenizer(const std::filesystem::path& dir) {
  bool present = false;
  for (const char* name : {"tokenizer.model", "tokenizer.json", "vocab.txt"}) {
    present = present || std::filesystem::exists(dir / name);
  }
  if (!present) return nullptr;
  try {
    return load_tokenizer_from_folder(dir);
  } catch (const std::runtime_error& e) {
    throw std::invalid_argument(e.what());
  }
}

nlohmann::json model_json(const std::filesystem::path& dir, const std::string& dtype) {
  const LoadedModel model = load_user_model(dir, dtype);
  const std::unique_ptr<SubwordTokenizer> tokenizer = optional_tokenizer(dir);
  const Encoder encoder(model.config.encoder, model.weights);
  return summarize_model(dir, model, encoder, tokenizer.get());
}

// Each dtype: whether this CPU runs it and, when not, why; and what --dtype auto picks.
nlohmann::json dtypes_json() {
  nlohmann::json runs = nlohmann::json::object();
  for (ComputeDtype dtype : {ComputeDtype::kF32, ComputeDtype::kBF16, ComputeDtype::kInt8}) {
    const std::string missing = dtype_unsupported_reason(dtype);
    runs[std::string(compute_dtype_name(dtype))] =
        missing.empty() ? nlohmann::json(true) : nlohmann::json(missing);
  }
  const AutoComputeDtype chosen = auto_compute_dtype();
  return {{"runs", runs},
          {"auto",
           {{"dtype", std::string(compute_dtype_name(chosen.dtype))}, {"reason", chosen.reason}}}};
}

int info(const InfoOptions& options) {
  std::vector<std::string> compiled, supported;
  for (Isa isa : compiled_isas()) {
    compiled.emplace_back(isa_name(isa));
    if (isa_supported(isa)) supported.emplace_back(isa_name(isa));
  }
  const Isa active = active_isa();  // throws on a bad TINYENC_ISA
  // Loaded before anything is printed: a bad folder leaves one error line and nothing else.
  const std::string dtype = checked_dtype(options.dtype);
  if (!dtype.empty() && options.model.empty()) throw UsageError("--dtype: give a model (-m)");
  const nlohmann::json model =
      options.model.empty() ? nlohmann::json() : model_json(options.model, dtype);
  if (options.json) {
    nlohmann::json document = {{"version", TINYENC_VERSION},
                               {"pe_kernels",
                                {{"active", std::string(isa_name(active))},
                                 {"compiled", compiled},
                                 {"supported", supported}}},
                               {"onednn", onednn_version()},
                               {"cpu_features", cpu_feature_list(cpu_features())},
                               {"dtypes", dtypes_json()},
                               {"threads", available_cpus()}};
    if (!model.is_null()) document["model"] = model;
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
  std::printf("tinyenc %s\n", TINYENC_VERSION);
  std::printf("PE kernels:  %s (compiled: %s; this CPU: %s)\n",
              std::string(isa_name(active)).c_str(), join(compiled).c_str(),
              join(supported).c_str());
  std::printf("oneDNN:      %s\n", onednn_version().c_str());
  std::printf("CPU:         %s\n", cpu_feature_list(cpu_features()).c_str());
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
  std::printf("threads:     %d (one per logical CPU)\n", available_cpus());
  if (!model.is_null()) std::printf("\n%s", summary_table(model).c_str());
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
