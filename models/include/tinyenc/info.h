// What tinyenc runs with on this machine, and what a model folder is: the facts `tinyenc info`
// shows, as plain values.
//
//   tinyenc::RuntimeInfo here = tinyenc::runtime_info();        // ISA, oneDNN, CPU features
//   tinyenc::ModelInfo model = tinyenc::model_info("models/pretrained/order-rope");
//   std::printf("%s: %lld layers\n", model.family.c_str(), (long long)model.layers);
#pragma once

#include <tinyenc/tinyenc.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace tinyenc {

// The library's version, "0.1.0".
std::string version();

// --- This machine ------------------------------------------------------------------------------

struct RuntimeInfo {
  // The instruction sets of tinyenc's own (position encoding) kernels: the one in use ("scalar",
  // "avx2", "avx512", "neon"; the environment variable TINYENC_ISA forces one), those compiled
  // in, and those of them this CPU runs.
  std::string pe_kernels;
  std::vector<std::string> compiled_pe_kernels;
  std::vector<std::string> supported_pe_kernels;
  std::string onednn_version;  // "2.6.3 (commit ...)", as the loaded oneDNN reports it
  std::string cpu_model;       // "AMD EPYC 9R14", as /proc/cpuinfo names it ("aarch64" if not)
  // The CPU features that decide which dtypes run natively: "avx2 avx512f avx512_bf16 ...", or
  // "none".
  std::string cpu_features;
  // The logical CPUs this process may run on (its affinity mask, hyper-threads counted): the
  // threads Options::threads 0 gives.
  int cpus = 0;
  // How a Linear layer's kernel (oneDNN's 1x1 convolution or matmul, or on AMX tinyenc's tile
  // product) is chosen for a shape:
  // "measured once, kept in <file>", "the fixed rule ...", or forced by TINYENC_LINEAR
  // (docs/dtypes.md, "Which primitive runs a Linear layer").
  std::string linear_choice;
};

// Throws Error kBadInput when TINYENC_ISA names an unknown ISA or one this CPU cannot run.
RuntimeInfo runtime_info();

// The position encoding kinds this build knows, as config.json and random_model() name them
// ("none", "sinusoidal", "learned", "rope", "alibi", "relative", ...).
std::vector<std::string> position_encoding_kinds();

// --- A model folder ----------------------------------------------------------------------------

// One parameter of a position encoding: a flag, an integer, a real number, a name, a list of
// numbers, or absent (std::monostate: a padding_idx the model does not have).
using InfoValue =
    std::variant<std::monostate, bool, int64_t, double, std::string, std::vector<double>>;

struct PositionEncodingInfo {
  std::string kind;  // "rope", as position_encoding_kinds() names it
  // The kind's parameters by name, in the order the description gives them ("pairing", "theta",
  // "rotary_dim", "head_dim" for RoPE; "slopes" for ALiBi, one per head).
  std::vector<std::pair<std::string, InfoValue>> parameters;
  bool scale_embeddings = false;  // token embeddings multiplied by sqrt(d_model)
  // For people: "rope (pairing half, theta 10000, rotary_dim 16 of head_dim 16)".
  std::string description;
};

struct TokenizerInfo {
  std::string kind;  // "sentencepiece", "wordpiece" or "other"
  int64_t vocab_size = 0;
  std::string special_template;       // the special tokens around one text: "<s> $A </s>"
  std::string pair_special_template;  // ... around a pair: "<s> $A </s> </s> $B </s>"
  std::string description;            // kind, size, file and template, in one line
};

// What model.safetensors holds, and what its weights take once loaded.
struct WeightsInfo {
  std::string file;  // <folder>/model.safetensors
  uint64_t file_bytes = 0;
  int64_t tensors = 0;
  uint64_t elements = 0;  // summed over every tensor
  // Per dtype on disk ("F32", "BF16", "I8", ...): its tensors and their bytes, by name.
  struct Stored {
    std::string dtype;
    int64_t tensors = 0;
    uint64_t bytes = 0;
  };
  std::vector<Stored> stored;
  int64_t float32_bytes = 0;  // the parameters as float32
  // Bytes the weights take in memory for the dtype that runs: Linear weights as that dtype
  // stores them (int8 with a scale and row sum per output channel), everything else float32.
  int64_t memory_bytes = 0;
  // In the file and not used by this family (a task head tinyenc does not run), and in the file
  // and skipped on purpose (buffers, tables computed instead).
  std::vector<std::string> unused_tensors;
  std::vector<std::string> ignored_tensors;
};

struct ModelInfo {
  std::string model;         // the folder, as given
  std::string family;        // "bert", "roberta", "tinyenc", ...
  std::string architecture;  // config.json's architectures[0]; empty when it names none
  PositionEncodingInfo position_encoding;
  int64_t layers = 0, heads = 0, head_dim = 0, d_model = 0, ffn_dim = 0;
  std::string activation;       // "gelu", "gelu_tanh", "relu", ...
  bool pre_layer_norm = false;  // pre-LN (norm before each sub-layer) or post-LN
  bool embedding_layer_norm = false;
  bool final_layer_norm = false;
  double layer_norm_eps = 0;
  std::string pooling;     // "cls", "mean", "pooler" or "none"
  bool pooler = false;     // has pooler weights
  bool normalize = false;  // embeddings come out L2-normalized (a 2_Normalize module)
  int64_t vocab_size = 0;
  int64_t type_vocab_size = 0;  // 0: no token types
  int64_t num_labels = 0;       // 0: no classification head
  std::vector<std::string> labels;
  int64_t max_tokens = 0;  // the longest input, special tokens included; 0: no limit
  std::optional<TokenizerInfo> tokenizer;  // none: the folder runs on ids only
  int64_t parameters = 0;
  std::optional<WeightsInfo> weights;  // none for a random_model() (no file)
  // The dtype in use ("f32", "bf16", "int8"), why ("asked", "default: float checkpoint", ...),
  // and the dtype a folder written by `tinyenc convert` records (empty for a float checkpoint).
  std::string dtype;
  std::string dtype_reason;
  std::string stored_dtype;
};

// Reads a model folder as Model::load would in `dtype` (Options::dtype's names; "" the
// folder's own), without running it: config.json, the safetensors header and the tokenizer
// files, which are optional here. Throws Error kBadInput for a folder that cannot be read or
// is malformed, or a dtype this CPU cannot run.
ModelInfo model_info(const std::string& folder, const std::string& dtype = "");

// The same for a loaded Model (its dtype, its pooling).
ModelInfo model_info(const Model& model);

}  // namespace tinyenc
