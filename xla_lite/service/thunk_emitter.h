#ifndef XLA_LITE_SERVICE_THUNK_EMITTER_H_
#define XLA_LITE_SERVICE_THUNK_EMITTER_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "xla_lite/runtime/thunk.h"
#include "xla_lite/service/buffer_assignment.h"
#include "xla_lite/service/execution_plan.h"

namespace xla_lite::gpu {

// One thunk per op of the plan, in its order: KernelThunks for loop and
// reduce kernels, GemmThunks (or, as `emission` says, KernelThunks running
// the compiler's own gemm kernel) for dots, MemcpyThunks for copies. Ops
// that write nothing (zero-element arrays) are left out.
absl::StatusOr<ThunkSequence> EmitThunks(const ExecutionPlan& plan,
                                         const BufferAssignment& assignment,
                                         const GemmEmission& emission);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_SERVICE_THUNK_EMITTER_H_
