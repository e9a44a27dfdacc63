#ifndef XLA_LITE_SERVICE_THUNK_EMITTER_H_
#define XLA_LITE_SERVICE_THUNK_EMITTER_H_

#include <cstdint>
#include <functional>

#include "absl/status/statusor.h"
#include "xla_lite/runtime/thunk.h"
#include "xla_lite/service/buffer_assignment.h"
#include "xla_lite/service/execution_plan.h"

namespace xla_lite::gpu {

struct ThunkEmissionOptions {
  // Which gemms and convolutions run as the compiler's own kernels (as
  // the plan was built with).
  KernelEmission emission;
  // Emitted kernels may launch before the kernels they depend on finish
  // (KernelSpec::waits_for_producers); DebugOptions'
  // xla_gpu_enable_programmatic_launch.
  bool programmatic_launch = true;
  // Applied to the thunks of each computation a while or conditional runs
  // (the compiler schedules their command buffers with it); null: left
  // op by op.
  std::function<ThunkSequence(ThunkSequence)> schedule_nested;
  // Whether `thunk` can be recorded inside a loop or branch node. A while
  // whose condition and body (a conditional whose branches) are all such
  // thunks keeps them unscheduled, so that the WhileThunk
  // (ConditionalThunk) is recordable whole, a node of the step's graph;
  // null: control flow is never recorded whole.
  std::function<bool(const Thunk&)> records_nested;
  // Set when a loop with a known trip count (ControlFlowPlan) is unrolled
  // (xla_gpu_command_buffer_unroll_loops): whether `thunk` can be recorded.
  // A loop whose body is all such thunks becomes its body's thunks, once
  // per trip, in the enclosing sequence, up to kMaxUnrolledThunks of them;
  // null: loops stay loops.
  std::function<bool(const Thunk&)> unrolls;
};

inline constexpr int64_t kMaxUnrolledThunks = 4096;

// One thunk per op of the plan, in its order: KernelThunks for loop, reduce
// and row kernels, GemmThunks (or, as `options.emission` says,
// KernelThunks running the compiler's own gemm kernel, with its epilogue)
// for dots, ConvolutionThunks for the convolutions `options.emission`
// gives the DNN library (KernelThunks, with any epilogue, for the others),
// MemcpyThunks for copies, WhileThunks and ConditionalThunks over the
// thunks of their computations (each a SequentialThunk). Ops that write
// nothing (zero-element arrays) are left out.
absl::StatusOr<ThunkSequence> EmitThunks(const ExecutionPlan& plan,
                                         const BufferAssignment& assignment,
                                         const ThunkEmissionOptions& options);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_SERVICE_THUNK_EMITTER_H_
