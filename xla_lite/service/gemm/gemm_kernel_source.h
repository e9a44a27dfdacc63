#ifndef XLA_LITE_SERVICE_GEMM_GEMM_KERNEL_SOURCE_H_
#define XLA_LITE_SERVICE_GEMM_GEMM_KERNEL_SOURCE_H_

#include <string>

#include "xla_lite/runtime/gemm_config.h"
#include "xla_lite/service/gemm/gemm_tiling.h"

namespace xla_lite::gpu {

// Portable CUDA C (NVRTC and hiprtc both compile it) for
//   extern "C" __global__ void <entry>(const T* lhs, const T* rhs, T* out)
// computing `config` with `tiling`; every size, stride, transpose, alpha and
// beta is a constant in the source. `entry` must be a C identifier.
// Launch it with GemmLaunchDimensionsFor(config, tiling).
std::string GemmKernelSource(const GemmConfig& config, const GemmTiling& tiling,
                             const std::string& entry);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_SERVICE_GEMM_GEMM_KERNEL_SOURCE_H_
