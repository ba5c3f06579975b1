// The PE kernels built for scalar (baseline flags).
#include "engine/pe/vec_scalar.h"

#define TINYENC_PE_ISA_NAMESPACE scalar
#include "engine/pe/kernel_impl.h"

namespace tinyenc::detail {

const PeKernelTable kScalarPeKernels = scalar::make_kernel_table<VecScalar>();

}  // namespace tinyenc::detail
