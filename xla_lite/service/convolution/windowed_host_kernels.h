#ifndef XLA_LITE_SERVICE_CONVOLUTION_WINDOWED_HOST_KERNELS_H_
#define XLA_LITE_SERVICE_CONVOLUTION_WINDOWED_HOST_KERNELS_H_

#include "stream_executor/kernel.h"
#include "xla_lite/service/convolution/windowed_config.h"

namespace xla_lite::gpu {

// The host platform's forms of the windowed kernels (windowed_kernels.h):
// the whole op in one call whatever the launch dimensions, summing in the
// order the CUDA kernels do. A buffer smaller than the config needs is
// INVALID_ARGUMENT, before anything is written.
se::HostKernelFn ConvolutionHostKernel(const ConvolutionConfig& config);
// Split-K (ConvolutionGemm): (lhs, rhs, scratch) leaves each split's
// partial sums, then (scratch, out) adds them in order.
se::HostKernelFn ConvolutionPartialsHostKernel(const ConvolutionConfig& config);
se::HostKernelFn ConvolutionSplitSumHostKernel(const ConvolutionConfig& config);
se::HostKernelFn ReduceWindowHostKernel(const PoolingConfig& config);
se::HostKernelFn SelectAndScatterHostKernel(const PoolingConfig& config);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_SERVICE_CONVOLUTION_WINDOWED_HOST_KERNELS_H_
