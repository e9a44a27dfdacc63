#ifndef XLA_LITE_SERVICE_COMPILER_H_
#define XLA_LITE_SERVICE_COMPILER_H_

#include <future>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "stream_executor/stream_executor.h"
#include "xla_lite/debug_options.pb.h"
#include "xla_lite/hlo/hlo_module.h"
#include "xla_lite/runtime/entry_signature.h"
#include "xla_lite/runtime/gpu_executable.h"
#include "xla_lite/service/execution_plan.h"

namespace xla_lite {

// The HLO passes of Compile, in order: verify, inline calls, rewrite
// dynamic-slice and dynamic-update-slice (RewriteDynamicSlices), normalize
// layouts, simplify, canonicalize dots, simplify again. Exposed for tests
// and tools that want to see the module the backend lowers.
absl::Status RunHloPasses(HloModule* module);

// The entry signature callers see: parameter and result shapes as stored
// (row-major over entry_computation_layout's physical dimension order) and
// the module's input_output_alias.
absl::StatusOr<gpu::EntrySignature> EntrySignatureOf(const HloModule& module);

// The kernel emission rules Compile lowers with, given `options`, whether
// the executor has BLAS and DNN libraries, and the workspace its library
// gemms take (StreamExecutor::GemmWorkspaceBytes).
gpu::KernelEmission KernelEmissionFor(
    const DebugOptions& options, bool blas, bool dnn,
    int64_t gemm_workspace_bytes = 0,
    const se::DeviceDescription* device = nullptr);

// Compiles `module` for `executor`'s platform:
//   1. RunHloPasses;
//   2. fusion: elementwise ops with broadcasts, reshapes, transposes, iotas
//      and scalar constants into loop kernels, reductions into reduce
//      kernels with their producers (and an elementwise consumer of their
//      size as epilogue) fused, dots into gemms (FusionPlan); then loop
//      kernels merged into multi-output kernels (MergeLoopKernels);
//   3. kernel emission: each fusion lowered once to a KernelProgram, printed
//      as CUDA C and evaluated by the host closure;
//   4. dots as GemmThunks, or the emitted gemm kernel when
//      options.xla_gpu_use_emitted_gemm is set or the executor has no BLAS;
//   5. buffer assignment with liveness-based reuse of one temp allocation
//      and results written into their aliased parameters in place;
//   6. thunks in program order, wrapped into command buffers as `options`
//      say (ScheduleCommandBuffers), and the GpuExecutable.
// `executor` may be null: then BLAS is assumed. UNIMPLEMENTED names the
// instruction for unsupported ops and types.
absl::StatusOr<std::unique_ptr<gpu::GpuExecutable>> Compile(
    std::unique_ptr<HloModule> module, se::StreamExecutor* executor,
    const DebugOptions& options);

// Starts loading the libraries Compile loads for `executor` under
// `options` (BLAS, DNN) on a thread of its own. Work before Compile then
// overlaps the loads: on the H200 host, parsing the medium transformer
// takes about 18 ms and loading cuBLAS about 60 ms, at times 90. Compile's
// library thread finds the libraries loaded, or waits for this load under
// the executor's lock. This does not report errors: Compile meets them
// again. The future is ready once the loads end, and destroying it waits
// for them. It is empty (not valid()) when there is nothing to load.
std::future<void> StartLoadingLibraries(se::StreamExecutor* executor,
                                        const DebugOptions& options);

}  // namespace xla_lite

#endif  // XLA_LITE_SERVICE_COMPILER_H_
