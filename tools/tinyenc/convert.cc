// `tinyenc convert`: a model folder's weights stored in int8 or bf16 (<tinyenc/convert.h>).
#include <tinyenc/convert.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>

#include "command.h"

namespace tinyenc::cli {
namespace {

struct ConvertOptions {
  std::string input;
  std::string output;
  std::string dtype;
};

// "87,492 bytes"
std::string bytes_text(uint64_t bytes) {
  const std::string digits = std::to_string(bytes);
  std::string text;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) text.push_back(',');
    text.push_back(digits[i]);
  }
  text.append(" bytes");
  return text;
}

int convert(const ConvertOptions& options) {
  if (options.dtype != "int8" && options.dtype != "bf16") {
    throw UsageError("--dtype '" + options.dtype + "': expected int8 or bf16");
  }
  const ConvertResult summary = tinyenc::convert(options.input, options.output, options.dtype);
  for (const std::string& entry : summary.not_copied) {
    std::fprintf(stderr, "tinyenc: warning: %s; not copied\n", entry.c_str());
  }
  // A BF16 checkpoint stored again as bf16 grows by its scales' metadata: "1.01x larger", never
  // a ratio below 1 called "smaller".
  const double input_bytes = static_cast<double>(std::max<uint64_t>(summary.input_bytes, 1));
  const double output_bytes = static_cast<double>(std::max<uint64_t>(summary.output_bytes, 1));
  const bool smaller = summary.output_bytes <= summary.input_bytes;
  std::fprintf(stderr, "tinyenc: %s: %lld tensors in %s; model.safetensors %s -> %s (%.2fx %s)\n",
               options.output.c_str(), static_cast<long long>(summary.converted_tensors),
               options.dtype.c_str(), bytes_text(summary.input_bytes).c_str(),
               bytes_text(summary.output_bytes).c_str(),
               smaller ? input_bytes / output_bytes : output_bytes / input_bytes,
               smaller ? "smaller" : "larger");
  return 0;
}

}  // namespace

RunCommand add_convert_command(CLI::App& root) {
  auto options = std::make_shared<ConvertOptions>();
  CLI::App* command = root.add_subcommand(
      "convert", "Write a copy of a model folder with its weights stored in int8 or bf16");
  command->add_option("-m,--model", options->input, "Model folder to convert (float weights)")
      ->required();
  command
      ->add_option("-o,--output", options->output,
                   "New folder for the converted model (must not exist, or be empty)")
      ->required()
      ->type_name("DIR");
  command
      ->add_option("--dtype", options->dtype,
                   "int8: Linear weights and embeddings as symmetric int8, one scale per output "
                   "channel or row (about 4x smaller); bf16: as bfloat16 (about 2x smaller)")
      ->required()
      ->type_name("DTYPE");
  command->footer(R"(The folder loads like any other: `tinyenc run -m OUT` runs it in its dtype
(int8, or bf16 where the CPU runs it), and --dtype still chooses another. Every other
file of the input is copied; LayerNorm weights and biases stay F32. Tensor names:
  <Linear or embedding weight>        I8 (int8) or BF16 (bf16), the original's shape
  <Linear or embedding weight>_scale  F32 [rows]: weight = I8 value x its row's scale
and model.safetensors' __metadata__ says "tinyenc_dtype": "int8" or "bf16".)");
  return [options] { return convert(*options); };
}

}  // namespace tinyenc::cli
