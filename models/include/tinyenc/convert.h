// A model folder's weights stored again in int8 or bf16: `tinyenc convert`.
//
//   tinyenc::convert("models/pretrained/order-rope", "/tmp/order-rope-int8", "int8");
//   tinyenc::Model model = tinyenc::Model::load("/tmp/order-rope-int8");  // runs in int8
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tinyenc {

struct ConvertResult {
  int64_t converted_tensors = 0;  // the Linear weights and embeddings stored in the new dtype
  uint64_t input_bytes = 0;       // the input's model.safetensors
  uint64_t output_bytes = 0;      // the output's
  // Entries of the input folder not copied, each "<path>: <why>" (a dangling link, a socket).
  std::vector<std::string> not_copied;
};

// Writes `output_folder`, a copy of `input_folder` whose model.safetensors holds its Linear
// weights and embeddings in `dtype` ("int8": symmetric, one float32 scale per output channel or
// row; "bf16"), everything else float32, and the dtype in its metadata. The folder appears whole
// or not at all; it must not exist, or be empty. Throws Error kBadInput for a dtype other than
// int8 or bf16, an input that is not a float model folder, or an output that exists.
ConvertResult convert(const std::string& input_folder, const std::string& output_folder,
                      const std::string& dtype);

}  // namespace tinyenc
