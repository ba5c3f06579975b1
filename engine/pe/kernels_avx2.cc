// The PE kernels built for avx2 (this file alone is compiled with its flags).
#include "engine/pe/vec_avx2.h"

#define TINYENC_PE_ISA_NAMESPACE avx2
#include "engine/pe/kernel_impl.h"

namespace tinyenc::detail {

const PeKernelTable kAvx2PeKernels = avx2::make_kernel_table<VecAvx2>();

}  // namespace tinyenc::detail
