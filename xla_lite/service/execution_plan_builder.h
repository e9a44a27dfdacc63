#ifndef XLA_LITE_SERVICE_EXECUTION_PLAN_BUILDER_H_
#define XLA_LITE_SERVICE_EXECUTION_PLAN_BUILDER_H_

// The builder behind BuildExecutionPlan, shared by execution_plan.cc (ops
// of kernels, gemms and copies, result placement, order) and
// control_flow_planning.cc (tuples, whiles, conditionals and the plans of
// their computations). Not for use elsewhere.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "base/status_macros.h"
#include "xla_lite/hlo/hlo_module.h"
#include "xla_lite/service/execution_plan.h"
#include "xla_lite/service/gemm_workspaces.h"
#include "xla_lite/service/fusion_plan.h"
#include "xla_lite/service/gemm_accumulation.h"
#include "xla_lite/service/hlo_rewrite_util.h"
#include "xla_lite/service/kernel_merging.h"
#include "xla_lite/service/op_graph.h"
#include "xla_lite/service/row_fusion.h"

namespace xla_lite::gpu::plan_internal {

// Which computation a plan is for: it decides how results relate to
// parameters (see ControlFlowPlan).
enum class ComputationKind { kEntry, kCondition, kBody, kBranch };

// Builds the plan: buffers and ops in post order, result placement,
// multi-output fusion of loop kernels, then the execution order.
class PlanBuilder {
 public:
  PlanBuilder(const HloModule& module, const HloComputation& computation,
              ComputationKind kind, const FusionPlan& fusion,
              const KernelEmission& emission, int depth,
              int64_t* planned_instructions)
      : module_(module),
        computation_(computation),
        kind_(kind),
        fusion_(fusion),
        emission_(emission),
        depth_(depth),
        planned_instructions_(planned_instructions) {}

  absl::StatusOr<ExecutionPlan> Build() {
    plan_.name = computation_.name();
    CreateValueBuffers();
    RETURN_IF_ERROR(AddComputedOps());
    RETURN_IF_ERROR(PlaceResults());
    RETURN_IF_ERROR(MergeLoopKernels(
        &plan_, &edges_,
        [this](const HloInstruction* i) { return fusion_.IsMaterialized(i); },
        buffer_of_, emission_));
    RETURN_IF_ERROR(FuseRows(&plan_, &edges_));
    RETURN_IF_ERROR(Order());
    AddGemmWorkspaces(plan_, edges_, emission_.gemm);
    return std::move(plan_);
  }

 private:
  int NewBuffer(std::string name, const HloInstruction* instruction,
                int64_t size, LogicalBuffer::Placement placement,
                int64_t number) {
    LogicalBuffer buffer;
    buffer.id = plan_.buffers.size();
    buffer.name = std::move(name);
    buffer.instruction = instruction;
    buffer.size = size;
    buffer.placement = placement;
    buffer.number = number;
    plan_.buffers.push_back(std::move(buffer));
    return plan_.buffers.back().id;
  }
  int AddOp(PlannedOp op) {
    plan_.ops.push_back(std::move(op));
    return plan_.ops.size() - 1;
  }
  int BufferOf(const HloInstruction* instr) const {
    return buffer_of_.at(StripReshapes(instr));
  }
  // The buffers of a value's leaves: its own for an array.
  std::vector<int> LeavesOf(const HloInstruction* instr) const {
    auto it = leaves_.find(instr);
    return it != leaves_.end() ? it->second : std::vector<int>{BufferOf(instr)};
  }

  void CreateValueBuffers();
  bool AddTupleValue(const HloInstruction* instr);
  absl::Status AddWhile(const HloInstruction* instr);
  absl::Status AddConditional(const HloInstruction* instr);
  absl::StatusOr<ExecutionPlan> PlanComputation(
      const HloInstruction& caller, const HloComputation& computation,
      ComputationKind kind, int64_t parameter_leaves,
      int64_t result_leaves) const;
  absl::StatusOr<absl::flat_hash_map<int64_t, int64_t>> ResultAliases(
      int64_t results) const;
  absl::Status AddComputedOps();
  absl::Status AddKernel(const HloInstruction* instr);
  absl::Status AddScatter(const HloInstruction* scatter);
  absl::Status AddGemm(const HloInstruction* dot);
  absl::Status AddWindowKernel(const HloInstruction* instr);
  absl::Status AddAccumulatingGemm(const HloInstruction* value,
                                   const GemmAccumulation& accumulation);
  absl::Status PlaceResults();
  // `graph` is over the plan as it is; a copy it adds makes it stale.
  absl::Status PlaceAliasedResult(const OpGraph& graph, int64_t index,
                                  int value, int64_t parameter,
                                  const absl::flat_hash_set<int64_t>& aliased);
  int AddCopy(int source, int destination, const std::string& name);
  bool CanWriteInPlace(int op, int value, int parameter_buffer) const;
  absl::Status Order();

  OpGraph Graph() const { return OpGraph(plan_.ops, edges_); }

  const HloModule& module_;
  const HloComputation& computation_;
  const ComputationKind kind_;
  const FusionPlan& fusion_;
  const KernelEmission& emission_;
  const int depth_;
  // Instructions planned so far for the whole program, against
  // kMaxPlannedInstructions.
  int64_t* const planned_instructions_;
  ExecutionPlan plan_;
  absl::flat_hash_map<const HloInstruction*, int> buffer_of_;
  // Tuple-shaped values: their leaves' buffers.
  absl::flat_hash_map<const HloInstruction*, std::vector<int>> leaves_;
  // (before, after): writes of an aliased parameter wait for its readers.
  std::vector<std::pair<int, int>> edges_;
  // Per aliased parameter number: the op writing its allocation.
  absl::flat_hash_map<int64_t, int> parameter_writer_;
  // Values a reduce kernel stores as its epilogue: no op of their own.
  absl::flat_hash_set<const HloInstruction*> fused_epilogues_;
};

}  // namespace xla_lite::gpu::plan_internal

#endif  // XLA_LITE_SERVICE_EXECUTION_PLAN_BUILDER_H_
