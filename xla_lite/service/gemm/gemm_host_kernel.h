#ifndef XLA_LITE_SERVICE_GEMM_GEMM_HOST_KERNEL_H_
#define XLA_LITE_SERVICE_GEMM_GEMM_HOST_KERNEL_H_

#include <cstdint>

#include "stream_executor/kernel.h"
#include "xla_lite/runtime/gemm_config.h"

namespace xla_lite::gpu {

// The host platform's form of the emitted gemm: arguments (lhs, rhs, out)
// as device addresses, the whole product in one call whatever the launch
// dimensions, reading each batch's operands at the config's strides. Each
// output element sums its products in increasing k in f32, as every thread
// of the GPU kernel does, then applies alpha and beta the same way. A
// buffer smaller than the config needs is INVALID_ARGUMENT, before
// anything is written.
se::HostKernelFn GemmHostKernel(const GemmConfig& config);

// acc[j] += scale * row[j] for j < n. Blocks of 8 with fixed trip counts
// are what GCC vectorizes at -O2; every element still gets one multiply
// and one add, in order. The host's gemm and convolution kernels share it.
void AddScaledRow(float* __restrict acc, const float* __restrict row,
                  float scale, int64_t n);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_SERVICE_GEMM_GEMM_HOST_KERNEL_H_
