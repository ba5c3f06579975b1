// The PE kernels built for avx512 (this file alone is compiled with its flags).
#include "engine/pe/vec_avx512.h"

#define TINYENC_PE_ISA_NAMESPACE avx512
#include "engine/pe/kernel_impl.h"

namespace tinyenc::detail {

const PeKernelTable kAvx512PeKernels = avx512::make_kernel_table<VecAvx512>();

}  // namespace tinyenc::detail
