#ifndef XLA_LITE_SERVICE_HOST_KERNEL_H_
#define XLA_LITE_SERVICE_HOST_KERNEL_H_

#include <memory>

#include "absl/status/status.h"
#include "stream_executor/kernel.h"
#include "xla_lite/service/kernel_program.h"

namespace xla_lite::gpu {

// Evaluates `program` over the buffers in `args` (laid out as `parameters`
// says), as the emitted CUDA kernel does on a device: the same scalar
// functions (compiled from the text the kernel carries), element types and
// rounding, and the same NaN and integer edge cases. Lanes of
// element indices are evaluated together so the per-op dispatch is paid
// once per chunk rather than per element. A loop program that is a gemm's
// epilogue reads its kReducedValue at element i from values[i].
absl::Status RunProgramOnHost(const KernelProgram& program,
                              const KernelParameters& parameters,
                              const se::KernelArgs& args,
                              const float* values = nullptr);

// The KernelSpec::host_fn that runs `program`.
se::HostKernelFn MakeHostKernel(std::shared_ptr<const KernelProgram> program,
                                KernelParameters parameters);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_SERVICE_HOST_KERNEL_H_
