// Which dtype a model runs in: the one asked for, `auto`, or the model file's own default.
//
//  - "" (nothing asked): a folder written by `tinyenc convert --dtype int8` runs in int8 and one
//    converted to bf16 in bf16, each when this CPU runs it (else f32 with the weights widened);
//    every float checkpoint (F32, F16, BF16) runs in f32.
//  - "f32", "bf16", "int8": that dtype; one this CPU cannot run is an error naming the missing
//    feature, never a silent fallback.
//  - "auto": auto_compute_dtype(), the fastest dtype that meets the accuracy gates here.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "engine/dtype.h"

namespace tinyenc {

struct DtypeChoice {
  ComputeDtype dtype = ComputeDtype::kF32;
  // Why, in a few words: "default: f32 checkpoint", "asked", "auto: <reason>".
  std::string reason;
};

// `stored` is the dtype a converted folder records (safetensors __metadata__ tinyenc_dtype), or
// nullopt for a float checkpoint. Throws std::invalid_argument for an unknown name ("dtype 'x':
// expected f32, bf16, int8 or auto") or an explicit dtype this CPU cannot run.
DtypeChoice choose_dtype(std::string_view requested, std::optional<ComputeDtype> stored);

}  // namespace tinyenc
