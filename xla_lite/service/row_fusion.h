#ifndef XLA_LITE_SERVICE_ROW_FUSION_H_
#define XLA_LITE_SERVICE_ROW_FUSION_H_

#include "absl/status/status.h"
#include "xla_lite/service/execution_plan.h"
#include "xla_lite/service/op_graph.h"

namespace xla_lite::gpu {

// Vertical fusion over rows: a kernel that reads what another stored
// merges with it into one row kernel (PlannedOp::kRowKernel) when the
// threads of a row can run both in turn, i.e. every element the consumer
// reads of the producer's output belongs to the consumer's own row. Row
// reductions (one output per row, at most kMaxRowLength elements, not
// column-wise) and loop kernels over at most kMaxRowLength elements per
// row qualify. A softmax (row maximum, row sum of exponentials, the
// normalized elements) or a LayerNorm (mean, variance, the normalized
// elements) becomes one kernel instead of three dependent ones, each of
// which would wait for the last to finish. Short rows take a thread each,
// longer ones a group of threads (EmitCudaRowKernel).
//
// A merge is kept only when it closes no dependency cycle (with `edges`,
// which it renumbers), no stage writes what an earlier stage read, and no
// stage overwrites a parameter in place that another stage reads.
absl::Status FuseRows(ExecutionPlan* plan, OpGraph::Edges* edges);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_SERVICE_ROW_FUSION_H_
