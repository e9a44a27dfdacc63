#ifndef XLA_LITE_SERVICE_GEMM_WORKSPACES_H_
#define XLA_LITE_SERVICE_GEMM_WORKSPACES_H_

#include "xla_lite/service/execution_plan.h"
#include "xla_lite/service/op_graph.h"

namespace xla_lite::gpu {

// Gives every library gemm of `plan` (IsLibraryGemm) a workspace of
// `emission.library_workspace_bytes` as its last write; none when that is 0.
//
// A library's split-K gemms keep partial sums in their workspace, so two
// gemms that run at the same time must not share one, and a command
// buffer runs any two ops that no dependency orders at the same time. A
// gemm therefore shares a workspace only with gemms that run before it on
// some path of `plan`'s dependencies (`edges` as OpGraph takes them): then
// sharing orders nothing that was not ordered already. Gemms whose results
// no later gemm needs (weight gradients, read only by the optimizer) end
// such chains, so a training step's backward pass wants about one
// workspace per weight gradient; past kMaxGemmWorkspaces a gemm takes the
// workspace whose last gemm came first in the plan, and waits for it.
// On the H100 the f32 medium transformer step took 2% longer with 8
// workspaces than with one workspace that every gemm shared unordered
// (which raced), the bf16 step and mlp_wide no longer; 2 or 4 workspaces
// in all took the f32 step 5% and 3% longer, and queueing the weight
// gradients' gemms on two workspaces of their own 6%. With 8, the last
// weight gradients still queued behind each other at the end of the step;
// the 18 workspaces the f32 medium transformer asks for (576 MiB) took
// its step on an H200 from 1,767 to 1,745 us, and a cap of 16 to 1,758
// (docs/benchmarks.md). The cap bounds the memory they take in programs
// with many more independent gemms: at 32 MiB each on CUDA, 1 GiB.
void AddGemmWorkspaces(ExecutionPlan& plan, const OpGraph::Edges& edges,
                       const GemmEmission& emission);

inline constexpr int kMaxGemmWorkspaces = 32;

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_SERVICE_GEMM_WORKSPACES_H_
