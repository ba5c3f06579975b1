// <tinyenc/info.h>'s ModelInfo of a Pipeline (models/pipeline.h), for the code that runs one
// directly rather than through a tinyenc::Model.
#pragma once

#include <tinyenc/info.h>

#include "models/pipeline.h"

namespace tinyenc {

// As model_info(const Model&): the pipeline's dtype and pooling. Throws Error.
ModelInfo model_info(const Pipeline& pipeline);

}  // namespace tinyenc
