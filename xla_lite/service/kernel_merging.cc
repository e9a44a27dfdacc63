#include "xla_lite/service/kernel_merging.h"

#include <algorithm>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "xla_lite/service/convolution/dnn_convolution.h"
#include "xla_lite/service/convolution/windowed_kernels.h"
#include "xla_lite/service/hlo_rewrite_util.h"

namespace xla_lite::gpu {
namespace {

// `program` with input `input` (read only at each element's own index)
// replaced by the gemm's product, and the product stored as one more
// output when `store_product`.
std::shared_ptr<const KernelProgram> WithProduct(const KernelProgram& program,
                                                 int input,
                                                 bool store_product) {
  auto fused = std::make_shared<KernelProgram>(KernelProgram::Kind::kLoop);
  std::vector<int> new_input(program.inputs().size(), -1);
  for (int i = 0; i < program.inputs().size(); ++i) {
    if (i != input) new_input[i] = fused->AddInput(program.inputs()[i]);
  }
  std::vector<int> new_id(program.ops().size(), -1);
  int product = -1;
  for (int id = 0; id < program.ops().size(); ++id) {
    ExprOp op = program.op(id);
    if (op.kind == ExprKind::kLoad && op.input == input) {
      ExprOp value;
      value.kind = ExprKind::kReducedValue;
      value.type = PrimitiveType::F32;
      product = new_id[id] = fused->Add(std::move(value));
      continue;
    }
    for (int& operand : op.operands) operand = new_id[operand];
    if (op.kind == ExprKind::kLoad) op.input = new_input[op.input];
    new_id[id] = fused->Add(std::move(op));
  }
  for (const KernelOutput& output : program.outputs()) {
    fused->AddOutput(output.buffer, new_id[output.op]);
  }
  if (store_product) {
    fused->AddOutput(program.inputs()[input], product);
  }
  return fused;
}

class Merger {
 public:
  Merger(ExecutionPlan* plan, OpGraph::Edges* edges,
         const IsMaterializedFn& is_materialized,
         const absl::flat_hash_map<const HloInstruction*, int>& buffer_of,
         const KernelEmission& emission)
      : plan_(*plan),
        edges_(*edges),
        is_materialized_(is_materialized),
        buffer_of_(buffer_of),
        emission_(emission) {}

  absl::Status Run();

 private:
  // An emitted f32 gemm or convolution that stores its product plainly.
  bool TakesEpilogue(int op) const;
  // The input of loop kernel `op` that reads `buffer` only at each
  // element's own index, over as many elements as every output has; -1
  // when there is none.
  int ElementwiseInput(int op, int buffer) const;
  // Merges loop kernel `c` into gemm or convolution `g` as its epilogue
  // when legal.
  bool TryFuseEpilogue(int g, int c);
  int FuseEpilogues();
  bool IsLoop(int op) const {
    return plan_.ops[op].kind == PlannedOp::Kind::kLoopKernel;
  }
  // Whether every buffer `op` writes is a result.
  bool WritesOnlyResults(int op) const;
  bool IsResultOnlyLoop(int op) const {
    return IsLoop(op) && WritesOnlyResults(op);
  }
  // Merges into result-only loop kernel `a` every later one that no path
  // through other kernels joins to it or to another of the group, in one
  // lowering: what merging them a pair at a time ends in, without
  // lowering the growing kernel again for each (quadratic in an optimizer
  // update's hundreds of parameters). Returns how many kernels it merged
  // into `a`: 0, changing nothing, when fewer than two would join or the
  // group does not lower or is not in-place safe.
  absl::StatusOr<int> MergeResultGroup(const OpGraph& graph, int a);
  // Merges `members` (loop kernels, roots in this order) into one kernel
  // in the lowest-numbered one's place when it lowers and is in-place safe;
  // returns whether it did. Paths between them are the caller's to rule
  // out.
  absl::StatusOr<bool> MergeOps(const std::vector<int>& members);
  // Merges op `b` into op `a` when legal; returns whether it did.
  // `graph` is over the plan as it is (no merge since it was made).
  absl::StatusOr<bool> TryMerge(const OpGraph& graph, int a, int b);
  // Who an op is across renumbering: its first root and root count (a
  // merge keeps the first op's roots first and adds the second's).
  using OpKey =
      std::tuple<const HloInstruction*, size_t, const HloInstruction*, size_t>;
  OpKey KeyOf(int a, int b) const {
    return {plan_.ops[a].roots.front(), plan_.ops[a].roots.size(),
            plan_.ops[b].roots.front(), plan_.ops[b].roots.size()};
  }
  // In-place results of `op` still read their parameter only at the
  // element they write.
  bool InPlaceSafe(const PlannedOp& op) const;
  int ParameterBuffer(int64_t number) const;

  ExecutionPlan& plan_;
  OpGraph::Edges& edges_;
  const IsMaterializedFn& is_materialized_;
  const absl::flat_hash_map<const HloInstruction*, int>& buffer_of_;
  const KernelEmission& emission_;
  // Pairs found unmergeable. A merge elsewhere never makes them mergeable:
  // it only adds paths between other ops, and their programs are the
  // same. Without this, every merge would retry them all (cubic).
  absl::flat_hash_set<OpKey> refused_;
};

bool Merger::TakesEpilogue(int op) const {
  const PlannedOp& product = plan_.ops[op];
  if (product.program != nullptr || product.reads.size() != 2) return false;
  if (product.kind == PlannedOp::Kind::kWindowKernel) {
    const HloInstruction& instr = *product.roots[0];
    return TakesConvolutionEpilogue(instr) &&
           !DnnConvolutionCallFor(instr, emission_.dnn_convolution);
  }
  return product.kind == PlannedOp::Kind::kGemm && product.gemm.beta == 0.0f &&
         product.gemm.type == se::blas::DataType::kF32 &&
         UsesEmittedGemmKernel(product.gemm, emission_.gemm);
}

int Merger::ElementwiseInput(int op, int buffer) const {
  const PlannedOp& kernel = plan_.ops[op];
  if (!IsLoop(op)) return -1;
  auto it = std::find(kernel.reads.begin(), kernel.reads.end(), buffer);
  if (it == kernel.reads.end()) return -1;
  const int input = it - kernel.reads.begin();
  const KernelProgram& program = *kernel.program;
  const int64_t count = program.inputs()[input].element_count;
  for (const KernelOutput& output : program.outputs()) {
    if (output.buffer.element_count != count) return -1;
  }
  for (const ExprOp& expr : program.ops()) {
    if (expr.kind == ExprKind::kLoad && expr.input == input &&
        program.op(expr.operands[0]).kind != ExprKind::kIndex) {
      return -1;
    }
  }
  return input;
}

bool Merger::TryFuseEpilogue(int g, int c) {
  const PlannedOp& gemm = plan_.ops[g];
  const PlannedOp& kernel = plan_.ops[c];
  const int product = gemm.writes[0];
  const bool convolution = gemm.kind == PlannedOp::Kind::kWindowKernel;
  const int input = ElementwiseInput(c, product);
  if (input < 0) return false;
  OpGraph graph(plan_.ops, edges_);
  if (graph.ReachesIndirectly(g, c)) return false;
  // The gemm's operands are read by every block until it finishes: no
  // element of them may be overwritten on the way.
  for (int b : kernel.writes) {
    const LogicalBuffer& written = plan_.buffers[b];
    int old_value = written.placement == LogicalBuffer::Placement::kParameter
                        ? ParameterBuffer(written.number)
                        : b;
    for (int operand : {b, old_value}) {
      if (operand == gemm.reads[0] || operand == gemm.reads[1]) return false;
    }
  }
  std::vector<int> readers = graph.ReadersOf(product);
  bool store_product =
      plan_.buffers[product].placement != LogicalBuffer::Placement::kTemp ||
      readers.size() > 1;
  PlannedOp fused;
  fused.kind = gemm.kind;
  fused.name = absl::StrCat(gemm.name, "+", kernel.name);
  fused.gemm = gemm.gemm;
  // A convolution keeps its instruction, which its kernels are made from.
  fused.roots = convolution ? gemm.roots : kernel.roots;
  fused.reads = {gemm.reads[0], gemm.reads[1]};
  for (int i = 0; i < kernel.reads.size(); ++i) {
    if (i != input) fused.reads.push_back(kernel.reads[i]);
  }
  fused.writes = kernel.writes;
  if (store_product) fused.writes.push_back(product);
  // A split-K convolution's scratch stays last.
  if (convolution && gemm.writes.size() > 1) {
    fused.writes.push_back(gemm.writes[1]);
  }
  fused.program = WithProduct(*kernel.program, input, store_product);
  VLOG(5) << "epilogue " << fused.name;
  plan_.ops[g] = std::move(fused);
  RemoveOp(plan_.ops, edges_, c, g);
  return true;
}

int Merger::FuseEpilogues() {
  int fused = 0;
  for (int g = 0; g < plan_.ops.size(); ++g) {
    if (!TakesEpilogue(g)) continue;
    OpGraph graph(plan_.ops, edges_);
    for (int c : graph.ReadersOf(plan_.ops[g].writes[0])) {
      if (TryFuseEpilogue(g, c)) {
        ++fused;
        // Ops were renumbered; g itself is the fused op, now done.
        if (c < g) --g;
        break;
      }
    }
  }
  return fused;
}

bool Merger::WritesOnlyResults(int op) const {
  for (int b : plan_.ops[op].writes) {
    if (plan_.buffers[b].placement == LogicalBuffer::Placement::kTemp) {
      return false;
    }
  }
  return true;
}

int Merger::ParameterBuffer(int64_t number) const {
  return number >= 0 && number < plan_.parameter_buffers.size()
             ? plan_.parameter_buffers[number]
             : -1;
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

absl::StatusOr<bool> Merger::TryMerge(const OpGraph& graph, int a, int b) {
  const OpKey key = KeyOf(a, b);
  if (refused_.contains(key)) return false;
  auto refuse = [&] {
    refused_.insert(key);
    return false;
  };
  if (graph.ReachesIndirectly(a, b) || graph.ReachesIndirectly(b, a)) {
    return refuse();
  }
  ASSIGN_OR_RETURN(const bool merged, MergeOps({a, b}));
  return merged || refuse();
}

absl::StatusOr<bool> Merger::MergeOps(const std::vector<int>& members) {
  PlannedOp merged;
  merged.kind = PlannedOp::Kind::kLoopKernel;
  std::vector<std::string> names;
  for (int m : members) {
    merged.roots.insert(merged.roots.end(), plan_.ops[m].roots.begin(),
                        plan_.ops[m].roots.end());
    names.push_back(plan_.ops[m].name);
  }
  // Names every root while that stays readable; the same name whether
  // the members merge at once or a pair at a time.
  merged.name = merged.roots.size() <= 3
                    ? absl::StrJoin(names, "+")
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
  merged.program = emission_.Finish(std::move(lowered->program));
  if (!InPlaceSafe(merged)) return false;
  VLOG(5) << "merged kernels " << merged.name;
  std::vector<int> sorted = members;
  std::sort(sorted.begin(), sorted.end());
  const int first = sorted.front();
  plan_.ops[first] = std::move(merged);
  // From the last, so that the earlier ones keep their numbers.
  for (auto m = sorted.rbegin(); m + 1 != sorted.rend(); ++m) {
    RemoveOp(plan_.ops, edges_, *m, first);
  }
  return true;
}

absl::StatusOr<int> Merger::MergeResultGroup(const OpGraph& graph, int a) {
  // Members no path joins: none reads what another writes, and none can
  // close a cycle once they are one kernel. Kernels joined by a direct
  // dependency are left to the pairwise merges.
  std::vector<int> group = {a};
  for (int b = a + 1; b < plan_.ops.size(); ++b) {
    if (!IsResultOnlyLoop(b) || refused_.contains(KeyOf(a, b))) continue;
    bool joined = false;
    for (int m : group) {
      joined = joined || graph.Reaches(m, b) || graph.Reaches(b, m);
    }
    if (!joined) group.push_back(b);
  }
  if (group.size() < 3) return 0;  // A pair merges as it would alone.
  ASSIGN_OR_RETURN(const bool merged, MergeOps(group));
  return merged ? static_cast<int>(group.size()) - 1 : 0;
}

absl::Status Merger::Run() {
  // Epilogues first, while every kernel still holds one value.
  const int epilogues = FuseEpilogues();
  int64_t merges = 0;
  // Producers into consumers that read them element by element.
  // Each pass stops at its first merge, so one graph serves it. The next
  // pass starts at the merged kernel: the ops before it and their
  // producers are as they were, and each of their pairs was refused (or
  // tried and not merged) in an earlier pass.
  for (int start = 0; start >= 0;) {
    OpGraph graph(plan_.ops, edges_);
    int merged_at = -1;
    for (int c = start; c < plan_.ops.size() && merged_at < 0; ++c) {
      if (!IsLoop(c)) continue;
      for (int buffer : plan_.ops[c].reads) {
        int p = graph.WriterOf(buffer);
        if (p < 0 || p == c || !IsLoop(p)) continue;
        ASSIGN_OR_RETURN(const bool merged, TryMerge(graph, p, c));
        if (merged) {
          merged_at = std::min(p, c);
          ++merges;
          break;
        }
      }
    }
    start = merged_at;
  }
  // Result-only kernels into one another: a whole group at once where it
  // lowers, else one pair at a time.
  for (bool changed = true; changed;) {
    changed = false;
    OpGraph graph(plan_.ops, edges_);
    for (int a = 0; a < plan_.ops.size() && !changed; ++a) {
      if (!IsResultOnlyLoop(a)) continue;
      ASSIGN_OR_RETURN(const int grouped, MergeResultGroup(graph, a));
      if (grouped > 0) {
        merges += grouped;
        changed = true;
        break;
      }
      for (int b = a + 1; b < plan_.ops.size() && !changed; ++b) {
        if (!IsResultOnlyLoop(b)) continue;
        ASSIGN_OR_RETURN(changed, TryMerge(graph, a, b));
      }
      merges += changed;
    }
  }
  VLOG(1) << "multi-output fusion: " << epilogues
          << " kernels fused into gemms and convolutions, " << merges
          << " kernels merged";
  return absl::OkStatus();
}

}  // namespace

absl::Status MergeLoopKernels(
    ExecutionPlan* plan, OpGraph::Edges* edges,
    const IsMaterializedFn& is_materialized,
    const absl::flat_hash_map<const HloInstruction*, int>& buffer_of,
    const KernelEmission& emission) {
  return Merger(plan, edges, is_materialized, buffer_of, emission).Run();
}

}  // namespace xla_lite::gpu
