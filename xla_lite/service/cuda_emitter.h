#ifndef XLA_LITE_SERVICE_CUDA_EMITTER_H_
#define XLA_LITE_SERVICE_CUDA_EMITTER_H_

#include <cstdint>
#include <string>

#include "stream_executor/device_address.h"  // The se alias.
#include "stream_executor/launch_dim.h"
#include "xla_lite/service/gemm/gemm_kernel_source.h"
#include "xla_lite/service/kernel_program.h"

namespace xla_lite::gpu {

// How a reduce kernel spreads its work: one thread per output with a plain
// loop when the reduced extent is small, else one block per output with a
// shared-memory tree.
struct ReductionStrategy {
  bool block_per_output = false;
  int threads_per_block = 256;
};
ReductionStrategy ChooseReductionStrategy(const KernelProgram& program);

// The launch the emitted kernel expects (it loops over whatever the grid
// does not cover, so any grid is correct; this one is sized for the work).
se::LaunchDimensions KernelLaunchDimensions(const KernelProgram& program);

// Portable CUDA C (NVRTC and hiprtc both compile it: no inline PTX, no
// intrinsics with reduced precision) for `program`, as
// extern "C" __global__ void <name>(parameters...). Sizes and constants
// are baked in.
std::string EmitCudaKernel(const KernelProgram& program,
                           const KernelParameters& parameters,
                           const std::string& name);

// The device function a gemm kernel calls with each product element
// (GemmKernelSource) to run `program`, a loop program over the gemm's
// output whose kReducedValue is that element. Parameters 0 and 1 are the
// gemm's lhs and rhs; the others become kernel parameters.
GemmEpilogueSource EmitCudaGemmEpilogue(const KernelProgram& program,
                                        const KernelParameters& parameters,
                                        const std::string& function);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_SERVICE_CUDA_EMITTER_H_
