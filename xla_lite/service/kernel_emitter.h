#ifndef XLA_LITE_SERVICE_KERNEL_EMITTER_H_
#define XLA_LITE_SERVICE_KERNEL_EMITTER_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "stream_executor/kernel.h"
#include "stream_executor/launch_dim.h"
#include "xla_lite/runtime/buffer_allocation.h"
#include "xla_lite/runtime/gemm_config.h"
#include "xla_lite/service/cuda_emitter.h"
#include "xla_lite/service/gemm/gemm_kernel_source.h"
#include "xla_lite/service/kernel_program.h"

namespace xla_lite::gpu {

// Everything a KernelThunk needs for one program.
struct EmittedKernel {
  se::KernelSpec spec;
  se::LaunchDimensions launch_dimensions;
  std::vector<BufferAllocation::Slice> arguments;
  std::vector<bool> written;
};

// The kernel for `program` over these slices (program input i reads
// inputs[i], output k writes outputs[k]): CUDA C for GPU platforms and the
// interpreter closure for the host, with the same parameters. Equal slices
// become one parameter, so an in-place update reads and writes through
// the same pointer. `name` must be a C identifier. Loop kernels are laid
// out for a device of `multiprocessors` (ChooseLoopLayout).
EmittedKernel EmitKernel(std::shared_ptr<const KernelProgram> program,
                         absl::Span<const BufferAllocation::Slice> inputs,
                         absl::Span<const BufferAllocation::Slice> outputs,
                         const std::string& name,
                         int64_t multiprocessors = kDefaultMultiprocessors);

// A kernel that computes an f32 product (a gemm's, a convolution's) and
// hands each element, at its row-major index, to an epilogue instead of
// storing it.
struct ProductKernel {
  // The kernel's own operands, its first parameters (read only), by the
  // names its source gives them.
  std::vector<std::string> operand_names;
  std::vector<BufferAllocation::Slice> operands;
  // The CUDA C of the kernel calling `epilogue` for each element.
  std::function<std::string(const EpilogueSource& epilogue)> source;
  // The host closure computing the product from args (the operands, then
  // the product's address, of product_elements floats).
  se::HostKernelFn host_product;
  int64_t product_elements = 0;
  se::LaunchDimensions launch_dimensions;
};

// `product` whose elements go to `epilogue`: a loop program over the
// product that reads it as kReducedValue, input i from inputs[i], and
// writes output k to outputs[k]. No output may be one of the operands,
// which every block reads until the kernel ends. On the host, the whole
// product first, then the epilogue over it, as each GPU thread does for
// its elements.
EmittedKernel EmitProductWithEpilogue(
    const ProductKernel& product, std::shared_ptr<const KernelProgram> epilogue,
    absl::Span<const BufferAllocation::Slice> inputs,
    absl::Span<const BufferAllocation::Slice> outputs, const std::string& name);

// An emitted gemm (see EmitGemmKernel) with an epilogue, as above. f32
// with beta = 0 only.
EmittedKernel EmitGemmWithEpilogue(
    const GemmConfig& config, std::shared_ptr<const KernelProgram> epilogue,
    const BufferAllocation::Slice& lhs, const BufferAllocation::Slice& rhs,
    absl::Span<const BufferAllocation::Slice> inputs,
    absl::Span<const BufferAllocation::Slice> outputs, const std::string& name);

// A row kernel's stage: `program` reading inputs[i] and writing
// outputs[k]; loop programs cover row_length elements per row.
struct RowKernelPart {
  std::shared_ptr<const KernelProgram> program;
  std::vector<BufferAllocation::Slice> inputs, outputs;
  int64_t row_length = 1;
};

// One kernel running `parts` for each of `rows` rows (EmitCudaRowKernel);
// on the host, each part's program over all rows in turn.
EmittedKernel EmitRowKernel(const std::vector<RowKernelPart>& parts,
                            int64_t rows, const std::string& name);

// `text` made into a C identifier.
std::string KernelName(const std::string& text, int64_t unique_id);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_SERVICE_KERNEL_EMITTER_H_
