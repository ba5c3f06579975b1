// The PE kernels built for neon (this file alone is compiled with its flags).
#include "engine/pe/vec_neon.h"

#define TINYENC_PE_ISA_NAMESPACE neon
#include "engine/pe/kernel_impl.h"

namespace tinyenc::detail {

const PeKernelTable kNeonPeKernels = neon::make_kernel_table<VecNeon>();

}  // namespace tinyenc::detail
