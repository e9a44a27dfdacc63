#ifndef XLA_LITE_SERVICE_CONVOLUTION_CONV_GEMM_KERNEL_H_
#define XLA_LITE_SERVICE_CONVOLUTION_CONV_GEMM_KERNEL_H_

// The tiled implicit-gemm convolution (ConvolutionGemm::tiled): the emitted
// gemm's blocks of 16x16 threads with register blocks and operand tiles in
// shared memory (gemm_tiling.h), its lhs tile loaded through the
// convolution's index map (stride, padding, both dilations, reversal and
// any dim_labels; taps on padding or holes read 0) and its rhs tile from
// the kernel by its strides.

#include <string>

#include "stream_executor/launch_dim.h"
#include "xla_lite/service/convolution/windowed_config.h"
#include "xla_lite/service/gemm/gemm_kernel_source.h"

namespace xla_lite::gpu {

// Portable CUDA C (NVRTC and hiprtc) for
//   extern "C" __global__ void <entry>(const float* lhs, const float* rhs,
//                                      float* out)
// computing `config` (config.gemm.tiled): every output element adds its
// products in increasing contraction order, each one fused multiply-add. With
// split-K, `out` is the scratch and receives each split's partial sums
// (ConvolutionGemm). `entry` must be a C identifier. With an epilogue (no
// split-K), `out` gives way to its parameters and each result goes to it.
std::string ConvolutionGemmSource(const ConvolutionConfig& config,
                                  const std::string& entry,
                                  const EpilogueSource* epilogue = nullptr);
// One block per tile along n (x), m (y) and group x split (z).
se::LaunchDimensions ConvolutionGemmLaunchDimensions(
    const ConvolutionConfig& config);

// Split-K's second pass, as the body of a grid-stride loop over `o`, one
// per element of scratch's first split (groups x m x n): adds the splits
// in order and stores the sum, reading `scratch` and writing `out` (or
// handing the sum to `epilogue`). `definitions` go before the kernel.
struct ConvolutionSplitSumSource {
  std::string definitions;
  std::string body;
};
ConvolutionSplitSumSource ConvolutionSplitSum(
    const ConvolutionConfig& config, const EpilogueSource* epilogue = nullptr);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_SERVICE_CONVOLUTION_CONV_GEMM_KERNEL_H_
