#include "xla_lite/service/kernel_merging.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "xla_lite/service/hlo_rewrite_util.h"

namespace xla_lite::gpu {
namespace {

class Merger {
 public:
  Merger(ExecutionPlan* plan, OpGraph::Edges* edges,
         const IsMaterializedFn& is_materialized,
         const absl::flat_hash_map<const HloInstruction*, int>& buffer_of)
      : plan_(*plan), edges_(*edges), is_materialized_(is_materialized),
        buffer_of_(buffer_of) {}

  absl::Status Run();

 private:
  bool IsLoop(int op) const {
    return plan_.ops[op].kind == PlannedOp::Kind::kLoopKernel;
  }
  // Whether every buffer `op` writes is a result.
  bool WritesOnlyResults(int op) const;
  // Merges op `b` into op `a` when legal; returns whether it did.
  absl::StatusOr<bool> TryMerge(int a, int b);
  // In-place results of `op` still read their parameter only at the
  // element they write.
  bool InPlaceSafe(const PlannedOp& op) const;
  int ParameterBuffer(int64_t number) const;
  void Remove(int b, int into);

  ExecutionPlan& plan_;
  OpGraph::Edges& edges_;
  const IsMaterializedFn& is_materialized_;
  const absl::flat_hash_map<const HloInstruction*, int>& buffer_of_;
};

bool Merger::WritesOnlyResults(int op) const {
  for (int b : plan_.ops[op].writes) {
    if (plan_.buffers[b].placement == LogicalBuffer::Placement::kTemp) {
      return false;
    }
  }
  return true;
}

int Merger::ParameterBuffer(int64_t number) const {
  for (const LogicalBuffer& buffer : plan_.buffers) {
    if (buffer.instruction != nullptr &&
        buffer.instruction->opcode() == HloOpcode::kParameter &&
        buffer.instruction->parameter_number() == number) {
      return buffer.id;
    }
  }
  return -1;
}

bool Merger::InPlaceSafe(const PlannedOp& op) const {
  const KernelProgram& program = *op.program;
  for (int k = 0; k < op.writes.size(); ++k) {
    const LogicalBuffer& written = plan_.buffers[op.writes[k]];
    if (written.placement != LogicalBuffer::Placement::kParameter) continue;
    int old_value = ParameterBuffer(written.number);
    auto it = std::find(op.reads.begin(), op.reads.end(), old_value);
    if (it == op.reads.end()) continue;
    int input = it - op.reads.begin();
    if (program.inputs()[input].element_count !=
        program.outputs()[k].buffer.element_count) {
      return false;
    }
    for (const ExprOp& expr : program.ops()) {
      if (expr.kind == ExprKind::kLoad && expr.input == input &&
          program.op(expr.operands[0]).kind != ExprKind::kIndex) {
        return false;
      }
    }
  }
  return true;
}

void Merger::Remove(int b, int into) {
  plan_.ops.erase(plan_.ops.begin() + b);
  auto renumber = [&](int op) {
    if (op == b) op = into;
    return op > b ? op - 1 : op;
  };
  OpGraph::Edges kept;
  for (const auto& [before, after] : edges_) {
    int x = renumber(before), y = renumber(after);
    if (x != y) kept.push_back({x, y});
  }
  edges_ = std::move(kept);
}

absl::StatusOr<bool> Merger::TryMerge(int a, int b) {
  OpGraph graph(plan_.ops, edges_);
  if (graph.ReachesIndirectly(a, b) || graph.ReachesIndirectly(b, a)) {
    return false;
  }
  PlannedOp merged;
  merged.kind = PlannedOp::Kind::kLoopKernel;
  merged.roots = plan_.ops[a].roots;
  merged.roots.insert(merged.roots.end(), plan_.ops[b].roots.begin(),
                      plan_.ops[b].roots.end());
  // Names every root while that stays readable.
  merged.name = merged.roots.size() <= 3
                    ? absl::StrCat(plan_.ops[a].name, "+", plan_.ops[b].name)
                    : absl::StrCat(merged.roots[0]->name(), "+",
                                   merged.roots.size() - 1, "_more");
  absl::StatusOr<LoweredKernel> lowered =
      LowerLoopFusion(merged.roots, is_materialized_);
  if (lowered.status().code() == absl::StatusCode::kFailedPrecondition) {
    return false;
  }
  RETURN_IF_ERROR(lowered.status());
  for (const HloInstruction* input : lowered->inputs) {
    merged.reads.push_back(buffer_of_.at(StripReshapes(input)));
  }
  for (const HloInstruction* root : merged.roots) {
    merged.writes.push_back(buffer_of_.at(root));
  }
  merged.program = std::move(lowered->program);
  if (!InPlaceSafe(merged)) return false;
  VLOG(5) << "merged kernels " << merged.name;
  int first = std::min(a, b), second = std::max(a, b);
  plan_.ops[first] = std::move(merged);
  Remove(second, first);
  return true;
}

absl::Status Merger::Run() {
  int64_t merges = 0;
  // Producers into consumers that read them element by element.
  for (bool changed = true; changed;) {
    changed = false;
    for (int c = 0; c < plan_.ops.size() && !changed; ++c) {
      if (!IsLoop(c)) continue;
      OpGraph graph(plan_.ops, edges_);
      for (int buffer : plan_.ops[c].reads) {
        int p = graph.WriterOf(buffer);
        if (p < 0 || p == c || !IsLoop(p)) continue;
        ASSIGN_OR_RETURN(changed, TryMerge(p, c));
        if (changed) break;
      }
      merges += changed;
    }
  }
  // Result-only kernels into one another.
  for (bool changed = true; changed;) {
    changed = false;
    for (int a = 0; a < plan_.ops.size() && !changed; ++a) {
      if (!IsLoop(a) || !WritesOnlyResults(a)) continue;
      for (int b = a + 1; b < plan_.ops.size() && !changed; ++b) {
        if (!IsLoop(b) || !WritesOnlyResults(b)) continue;
        ASSIGN_OR_RETURN(changed, TryMerge(a, b));
      }
      merges += changed;
    }
  }
  VLOG(1) << "multi-output fusion: " << merges << " kernels merged";
  return absl::OkStatus();
}

}  // namespace

absl::Status MergeLoopKernels(
    ExecutionPlan* plan, OpGraph::Edges* edges,
    const IsMaterializedFn& is_materialized,
    const absl::flat_hash_map<const HloInstruction*, int>& buffer_of) {
  return Merger(plan, edges, is_materialized, buffer_of).Run();
}

}  // namespace xla_lite::gpu
