#ifndef XLA_LITE_SERVICE_CONVOLUTION_WINDOWED_KERNELS_H_
#define XLA_LITE_SERVICE_CONVOLUTION_WINDOWED_KERNELS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "stream_executor/kernel.h"
#include "stream_executor/launch_dim.h"
#include "xla_lite/service/convolution/windowed_config.h"
#include "xla_lite/service/kernel_emitter.h"

namespace xla_lite::gpu {

// The compiler's kernels for convolution, reduce-window and
// select-and-scatter: portable CUDA C for NVRTC and hiprtc with every size
// and stride a constant, and the host platform's closure computing the
// same sums in the same order (f32, one rounding per multiply and add), so
// both back ends agree. Each is a plain kernel of device addresses,
// recordable in command buffers like any KernelThunk; EmitWindowedKernels
// gives their launch dimensions. `name` must be a C identifier.
//
// convolution(lhs, rhs, out): an implicit gemm (ConvolutionGemm), its
// contraction running over the window's taps (row-major) and, per tap, the
// kernel's input features. Tiled (conv_gemm_kernel.h) where config.gemm
// says so, with split-K as convolution(lhs, rhs, scratch) then
// EmitConvolutionSplitSumKernel's (scratch, out); otherwise one output
// element per thread, taps on padding or holes skipped.
se::KernelSpec EmitConvolutionKernel(const ConvolutionConfig& config,
                                     const std::string& name);
se::KernelSpec EmitConvolutionSplitSumKernel(const ConvolutionConfig& config,
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

// One kernel of a verified convolution, reduce-window or select-and-scatter
// with its launch dimensions, and which of the op's buffers it takes, in
// order: indices into (array operands..., result, scratch), the last one
// the buffer it writes.
struct WindowedKernel {
  se::KernelSpec spec;
  se::LaunchDimensions launch_dimensions;
  std::vector<int> arguments;
};
// The kernels of `instr`, to run in order: one, or for a split-K
// convolution the partial sums into the scratch and their sum into the
// result. UNIMPLEMENTED naming the instruction for forms the kernels do
// not take (windowed_config.h).
absl::StatusOr<std::vector<WindowedKernel>> EmitWindowedKernels(
    const HloInstruction& instr, const std::string& name);
// Whether convolution `instr`'s kernels can hand each result element to an
// epilogue (EmitConvolutionWithEpilogue): f32 on the tiled kernel.
bool TakesConvolutionEpilogue(const HloInstruction& instr);

// The kernels of convolution `instr` (TakesConvolutionEpilogue) as
// EmitWindowedKernels emits them, the last handing each result element to
// `epilogue` instead of storing it (EmitProductWithEpilogue): the tiled
// kernel itself, or with split-K (`scratch` then names the scratch) the
// sum of the splits.
absl::StatusOr<std::vector<EmittedKernel>> EmitConvolutionWithEpilogue(
    const HloInstruction& instr, std::shared_ptr<const KernelProgram> epilogue,
    const BufferAllocation::Slice& lhs, const BufferAllocation::Slice& rhs,
    const BufferAllocation::Slice* scratch,
    absl::Span<const BufferAllocation::Slice> inputs,
    absl::Span<const BufferAllocation::Slice> outputs, const std::string& name);

// The scratch bytes EmitWindowedKernels' kernels need for `instr` (0 for
// none), or the error it would return, without emitting anything.
absl::StatusOr<int64_t> WindowedScratchBytes(const HloInstruction& instr);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_SERVICE_CONVOLUTION_WINDOWED_KERNELS_H_
