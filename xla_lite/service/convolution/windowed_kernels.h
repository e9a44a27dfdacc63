#ifndef XLA_LITE_SERVICE_CONVOLUTION_WINDOWED_KERNELS_H_
#define XLA_LITE_SERVICE_CONVOLUTION_WINDOWED_KERNELS_H_

#include <string>

#include "absl/status/statusor.h"
#include "stream_executor/kernel.h"
#include "stream_executor/launch_dim.h"
#include "xla_lite/service/convolution/windowed_config.h"

namespace xla_lite::gpu {

// The compiler's kernels for convolution, reduce-window and
// select-and-scatter: portable CUDA C for NVRTC and hiprtc with every size
// and stride a constant, and the host platform's closure computing the
// same sums in the same order (f32, one rounding per multiply and add), so
// both back ends agree. Each is a plain kernel of device addresses,
// recordable in command buffers like any KernelThunk; launch with
// WindowedLaunchDimensions. `name` must be a C identifier.
//
// convolution(lhs, rhs, out): an implicit gemm, one output element per
// thread, its contraction running over the window's taps (row-major) and,
// per tap, the kernel's input features; taps on padding or holes skip.
se::KernelSpec EmitConvolutionKernel(const ConvolutionConfig& config,
                                     const std::string& name);
// reduce-window(operand, out): one window per thread, init then the taps
// in row-major order.
se::KernelSpec EmitReduceWindowKernel(const PoolingConfig& config,
                                      const std::string& name);
// select-and-scatter(operand, source, out), deterministic: one result
// element per thread, which adds to init, in row-major order of the
// windows covering it, the source element of each window that selects it
// (select keeps the first element against each later one, as XLA does).
se::KernelSpec EmitSelectAndScatterKernel(const PoolingConfig& config,
                                          const std::string& name);

// One thread per element of `out_elements`.
se::LaunchDimensions WindowedLaunchDimensions(int64_t out_elements);

// The kernel of a verified convolution, reduce-window or select-and-scatter
// with its launch dimensions; UNIMPLEMENTED naming the instruction for
// forms the kernels do not take (windowed_config.h).
struct WindowedKernel {
  se::KernelSpec spec;
  se::LaunchDimensions launch_dimensions;
};
absl::StatusOr<WindowedKernel> EmitWindowedKernel(const HloInstruction& instr,
                                                  const std::string& name);
// Whether EmitWindowedKernel takes `instr`, without emitting anything.
absl::Status CheckWindowedKernel(const HloInstruction& instr);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_SERVICE_CONVOLUTION_WINDOWED_KERNELS_H_
