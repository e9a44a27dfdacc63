#ifndef XLA_LITE_SERVICE_KERNEL_MERGING_H_
#define XLA_LITE_SERVICE_KERNEL_MERGING_H_

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "xla_lite/hlo/hlo_instruction.h"
#include "xla_lite/service/elemental_lowering.h"
#include "xla_lite/service/execution_plan.h"
#include "xla_lite/service/gemm/gemm_kernel_emitter.h"
#include "xla_lite/service/op_graph.h"

namespace xla_lite::gpu {

// Multi-output fusion: merges loop kernels of `plan` (before ordering) so a
// step launches fewer of them.
//  - A loop kernel that reads an emitted gemm's or convolution's product
//    (see `emission` and TakesConvolutionEpilogue) only at each element's
//    own index, with every output the product's size, becomes its
//    epilogue: each product element goes from registers into the kernel's
//    computation. The product is still stored when others read it.
//  - A producer merges into a consumer that reads it only at each
//    element's own index: the consumer uses the value from registers, and
//    the producer's result is still stored for its other readers.
//  - Kernels that only write results (an optimizer's per-parameter
//    updates, typically) merge into one.
// A merge is kept only when the merged kernel closes no dependency cycle
// (with `edges`, which it renumbers) and every result it writes in place
// into a parameter is still read only at its own element. `buffer_of`
// maps materialized values to their buffers.
absl::Status MergeLoopKernels(
    ExecutionPlan* plan, OpGraph::Edges* edges,
    const IsMaterializedFn& is_materialized,
    const absl::flat_hash_map<const HloInstruction*, int>& buffer_of,
    const KernelEmission& emission);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_SERVICE_KERNEL_MERGING_H_
