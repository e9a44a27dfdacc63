#include "xla_lite/service/execution_plan.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <queue>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "xla_lite/service/collective_lowering.h"
#include "xla_lite/service/convolution/windowed_kernels.h"
#include "xla_lite/service/elemental_lowering.h"
#include "xla_lite/service/execution_plan_builder.h"
#include "xla_lite/service/fusion_plan.h"
#include "xla_lite/service/hlo_rewrite_util.h"
#include "xla_lite/service/kernel_merging.h"
#include "xla_lite/service/op_graph.h"
#include "xla_lite/service/row_fusion.h"

namespace xla_lite::gpu {
namespace {

const char* PlacementName(LogicalBuffer::Placement placement) {
  switch (placement) {
    case LogicalBuffer::Placement::kTemp:
      return "temp";
    case LogicalBuffer::Placement::kParameter:
      return "parameter";
    case LogicalBuffer::Placement::kConstant:
      return "constant";
    case LogicalBuffer::Placement::kOutput:
      return "output";
    case LogicalBuffer::Placement::kWorkspace:
      return "workspace";
  }
  return "?";
}

const char* OpKindName(PlannedOp::Kind kind) {
  switch (kind) {
    case PlannedOp::Kind::kLoopKernel:
      return "loop";
    case PlannedOp::Kind::kReduceKernel:
      return "reduce";
    case PlannedOp::Kind::kGemm:
      return "gemm";
    case PlannedOp::Kind::kCopy:
      return "copy";
    case PlannedOp::Kind::kRowKernel:
      return "row";
    case PlannedOp::Kind::kWindowKernel:
      return "window";
    case PlannedOp::Kind::kCollective:
      return "collective";
    case PlannedOp::Kind::kScatter:
      return "scatter";
    case PlannedOp::Kind::kWhile:
      return "while";
    case PlannedOp::Kind::kConditional:
      return "conditional";
  }
  return "?";
}

}  // namespace

namespace plan_internal {

void PlanBuilder::CreateValueBuffers() {
  for (const HloInstruction* instr : computation_.MakeInstructionPostOrder()) {
    if (AddTupleValue(instr) || !fusion_.IsMaterialized(instr)) continue;
    LogicalBuffer::Placement placement = LogicalBuffer::Placement::kTemp;
    int64_t number = -1;
    if (instr->opcode() == HloOpcode::kParameter) {
      placement = LogicalBuffer::Placement::kParameter;
      number = instr->parameter_number();
    } else if (instr->opcode() == HloOpcode::kConstant) {
      placement = LogicalBuffer::Placement::kConstant;
    }
    buffer_of_[instr] = NewBuffer(instr->name(), instr,
                                  instr->shape().ByteSize(), placement, number);
  }
  if (kind_ == ComputationKind::kEntry) {
    for (int64_t p = 0; p < computation_.num_parameters(); ++p) {
      const HloInstruction* parameter = computation_.parameter_instruction(p);
      auto it = buffer_of_.find(parameter);
      plan_.parameter_buffers.push_back(it == buffer_of_.end() ? -1
                                                               : it->second);
    }
  } else if (computation_.num_parameters() == 1) {
    plan_.parameter_buffers = LeavesOf(computation_.parameter_instruction(0));
  }
}

absl::Status PlanBuilder::AddComputedOps() {
  for (const HloInstruction* instr : fusion_.computed()) {
    if (fused_epilogues_.contains(instr)) continue;
    if (const GemmAccumulation* accumulation = fusion_.AccumulationOf(instr)) {
      RETURN_IF_ERROR(AddAccumulatingGemm(instr, *accumulation));
    } else if (instr->opcode() == HloOpcode::kDot) {
      RETURN_IF_ERROR(AddGemm(instr));
    } else if (IsCollective(instr->opcode())) {
      PlannedOp op;
      op.kind = PlannedOp::Kind::kCollective;
      op.name = instr->name();
      ASSIGN_OR_RETURN(op.collective, LowerCollective(*instr));
      op.reads = {BufferOf(instr->operand(0))};
      op.writes = {BufferOf(instr)};
      AddOp(std::move(op));
    } else if (instr->opcode() == HloOpcode::kScatter) {
      RETURN_IF_ERROR(AddScatter(instr));
    } else if (instr->opcode() == HloOpcode::kWhile) {
      RETURN_IF_ERROR(AddWhile(instr));
    } else if (instr->opcode() == HloOpcode::kConditional) {
      RETURN_IF_ERROR(AddConditional(instr));
    } else if (ReadsMaterializedOperands(*instr)) {
      RETURN_IF_ERROR(AddWindowKernel(instr));
    } else {
      RETURN_IF_ERROR(AddKernel(instr));
    }
  }
  return absl::OkStatus();
}

absl::Status PlanBuilder::AddKernel(const HloInstruction* instr) {
  IsMaterializedFn is_materialized = [this](const HloInstruction* i) {
    return fusion_.IsMaterialized(i);
  };
  PlannedOp op;
  op.name = instr->name();
  LoweredKernel lowered;
  const HloInstruction* stored = instr;
  if (instr->opcode() == HloOpcode::kReduce) {
    op.kind = PlannedOp::Kind::kReduceKernel;
    const HloInstruction* epilogue = fusion_.EpilogueOf(instr);
    absl::StatusOr<LoweredKernel> fused =
        epilogue == nullptr ? absl::FailedPreconditionError("no epilogue")
                            : LowerReduction(instr, is_materialized, epilogue);
    if (fused.ok()) {
      lowered = *std::move(fused);
      fused_epilogues_.insert(epilogue);
      stored = epilogue;
      op.name = absl::StrCat(instr->name(), "+", epilogue->name());
    } else if (fused.status().code() == absl::StatusCode::kFailedPrecondition) {
      ASSIGN_OR_RETURN(lowered, LowerReduction(instr, is_materialized));
    } else {
      return fused.status();
    }
  } else {
    op.kind = PlannedOp::Kind::kLoopKernel;
    op.roots = {instr};
    ASSIGN_OR_RETURN(lowered, LowerLoopFusion({instr}, is_materialized));
  }
  for (const HloInstruction* input : lowered.inputs) {
    op.reads.push_back(BufferOf(input));
  }
  op.writes = {BufferOf(stored)};
  op.program = emission_.Finish(std::move(lowered.program));
  VLOG(5) << op.name << ": " << op.program->ToString();
  AddOp(std::move(op));
  return absl::OkStatus();
}

// One op, so that the scatter's buffer has one writer: the fill (a copy of
// a materialized operand, else a kernel computing it straight into the
// buffer, as for a broadcast zero) and then the scatter kernel.
absl::Status PlanBuilder::AddScatter(const HloInstruction* scatter) {
  IsMaterializedFn is_materialized = [this](const HloInstruction* i) {
    return fusion_.IsMaterialized(i);
  };
  const HloInstruction* operand = scatter->operand(0);
  const int out = BufferOf(scatter);
  PlannedOp::Stage fill;
  if (fusion_.IsMaterialized(StripReshapes(operand))) {
    fill.reads = {BufferOf(operand)};
  } else {
    ASSIGN_OR_RETURN(LoweredKernel lowered,
                     LowerLoopFusion({operand}, is_materialized));
    for (const HloInstruction* input : lowered.inputs) {
      fill.reads.push_back(BufferOf(input));
    }
    fill.program = emission_.Finish(std::move(lowered.program));
  }
  fill.writes = {out};
  ASSIGN_OR_RETURN(LoweredKernel lowered,
                   LowerScatter(scatter, is_materialized));
  PlannedOp::Stage update;
  for (const HloInstruction* input : lowered.inputs) {
    update.reads.push_back(BufferOf(input));
  }
  update.writes = {out};
  update.program = emission_.Finish(std::move(lowered.program));
  PlannedOp op;
  op.kind = PlannedOp::Kind::kScatter;
  op.name = scatter->name();
  for (const PlannedOp::Stage* stage : {&fill, &update}) {
    for (int b : stage->reads) {
      if (std::find(op.reads.begin(), op.reads.end(), b) == op.reads.end()) {
        op.reads.push_back(b);
      }
    }
  }
  op.writes = {out};
  VLOG(5) << op.name << ": " << update.program->ToString();
  op.stages = {std::move(fill), std::move(update)};
  AddOp(std::move(op));
  return absl::OkStatus();
}

absl::Status PlanBuilder::AddGemm(const HloInstruction* dot) {
  ASSIGN_OR_RETURN(GemmLowering lowering, LowerDot(*dot));
  PlannedOp op;
  op.kind = PlannedOp::Kind::kGemm;
  op.name = dot->name();
  op.reads = {BufferOf(lowering.lhs.source), BufferOf(lowering.rhs.source)};
  op.writes = {BufferOf(dot)};
  op.gemm = emission_.Finish(std::move(lowering.config));
  AddOp(std::move(op));
  return absl::OkStatus();
}

absl::Status PlanBuilder::AddWindowKernel(const HloInstruction* instr) {
  ASSIGN_OR_RETURN(int64_t scratch, WindowedScratchBytes(*instr));
  PlannedOp op;
  op.kind = PlannedOp::Kind::kWindowKernel;
  op.name = instr->name();
  op.roots = {instr};
  for (const HloInstruction* operand : instr->operands()) {
    if (operand->shape().rank() > 0) op.reads.push_back(BufferOf(operand));
  }
  op.writes = {BufferOf(instr)};
  if (scratch > 0) {
    op.writes.push_back(NewBuffer(absl::StrCat(instr->name(), ".scratch"),
                                  nullptr, scratch,
                                  LogicalBuffer::Placement::kTemp, -1));
  }
  AddOp(std::move(op));
  return absl::OkStatus();
}

// The gemm reads {lhs, rhs, addend} and writes `value`; the thunk emitter
// copies the addend into the value's buffer first unless they are one.
absl::Status PlanBuilder::AddAccumulatingGemm(
    const HloInstruction* value, const GemmAccumulation& accumulation) {
  ASSIGN_OR_RETURN(GemmLowering lowering,
                   LowerAccumulation(accumulation, value->shape()));
  PlannedOp op;
  op.kind = PlannedOp::Kind::kGemm;
  op.name = absl::StrCat(accumulation.dot->name(), "+", value->name());
  op.reads = {BufferOf(lowering.lhs.source), BufferOf(lowering.rhs.source),
              BufferOf(accumulation.addend)};
  op.writes = {BufferOf(value)};
  op.gemm = emission_.Finish(std::move(lowering.config));
  AddOp(std::move(op));
  return absl::OkStatus();
}

int PlanBuilder::AddCopy(int source, int destination, const std::string& name) {
  PlannedOp op;
  op.kind = PlannedOp::Kind::kCopy;
  op.name = name;
  op.reads = {source};
  op.writes = {destination};
  return AddOp(std::move(op));
}

// Writing `value` into the parameter's allocation is safe when the op that
// computes it does not read the parameter, is an accumulating gemm that
// reads it only as the addend (beta * out is read by the thread that then
// writes it), or is a single-output kernel reading it only at the element
// it writes (the thread that writes an element has read it first; a reduce
// kernel's epilogue reads it after the reduction, in the thread that
// stores). Whether the parameter's other readers can run first is Order's
// problem, checked by the caller.
bool PlanBuilder::CanWriteInPlace(int op_id, int value,
                                  int parameter_buffer) const {
  const PlannedOp& op = plan_.ops[op_id];
  auto it = std::find(op.reads.begin(), op.reads.end(), parameter_buffer);
  if (it == op.reads.end()) return true;
  if (op.kind == PlannedOp::Kind::kGemm) {
    return op.gemm.beta != 0.0f && it - op.reads.begin() == 2;
  }
  if ((op.kind != PlannedOp::Kind::kLoopKernel &&
       op.kind != PlannedOp::Kind::kReduceKernel) ||
      op.writes.size() != 1) {
    return false;
  }
  const KernelProgram& program = *op.program;
  int input = it - op.reads.begin();
  if (program.inputs()[input].element_count !=
      program.outputs()[0].buffer.element_count) {
    return false;
  }
  for (const ExprOp& expr : program.ops()) {
    if (expr.kind == ExprKind::kLoad && expr.input == input &&
        program.op(expr.operands[0]).kind != ExprKind::kIndex) {
      return false;
    }
  }
  return true;
}

absl::Status PlanBuilder::PlaceAliasedResult(
    const OpGraph& graph, int64_t index, int value, int64_t parameter,
    const absl::flat_hash_set<int64_t>& aliased) {
  const int parameter_buffer = plan_.parameter_buffers.at(parameter);
  if (value == parameter_buffer) {  // Returned unchanged: nothing to do.
    plan_.output_buffers[index] = value;
    return absl::OkStatus();
  }
  // Copied: NewBuffer below may move the buffers.
  const LogicalBuffer buffer = plan_.buffers[value];
  int writer = graph.WriterOf(value);
  if (buffer.placement == LogicalBuffer::Placement::kTemp && writer >= 0 &&
      CanWriteInPlace(writer, value, parameter_buffer)) {
    bool ordered = true;
    for (int reader : graph.ReadersOf(parameter_buffer)) {
      if (reader != writer && graph.Reaches(writer, reader)) ordered = false;
    }
    if (ordered) {
      plan_.buffers[value].placement = LogicalBuffer::Placement::kParameter;
      plan_.buffers[value].number = parameter;
      parameter_writer_[parameter] = writer;
      plan_.output_buffers[index] = value;
      return absl::OkStatus();
    }
  }
  // Copied in last. A parameter that is itself overwritten by another
  // result is staged in a temp first, so the copies cannot clobber each
  // other.
  int source = value;
  if (buffer.placement == LogicalBuffer::Placement::kParameter &&
      aliased.contains(buffer.number)) {
    int staged = NewBuffer(absl::StrCat(buffer.name, ".staged"), nullptr,
                           buffer.size, LogicalBuffer::Placement::kTemp, -1);
    AddCopy(value, staged, absl::StrCat("stage.", buffer.name));
    source = staged;
  }
  int destination =
      NewBuffer(absl::StrCat("result.", index), nullptr, buffer.size,
                LogicalBuffer::Placement::kParameter, parameter);
  parameter_writer_[parameter] =
      AddCopy(source, destination, absl::StrCat("result.", index));
  plan_.output_buffers[index] = destination;
  return absl::OkStatus();
}

absl::Status PlanBuilder::PlaceResults() {
  const std::vector<int> results = LeavesOf(computation_.root_instruction());
  plan_.output_buffers.assign(results.size(), -1);
  ASSIGN_OR_RETURN(auto alias_of_output, ResultAliases(results.size()));
  absl::flat_hash_set<int64_t> aliased;
  for (const auto& [output, parameter] : alias_of_output) {
    aliased.insert(parameter);
  }
  // One graph for every result placed in place (most of an optimizer's);
  // made anew only after a copy was added.
  std::optional<OpGraph> graph;
  for (int64_t i = 0; i < results.size(); ++i) {
    int value = results[i];
    auto alias = alias_of_output.find(i);
    if (alias != alias_of_output.end()) {
      const size_t ops = plan_.ops.size();
      if (!graph.has_value()) graph.emplace(plan_.ops, edges_);
      RETURN_IF_ERROR(
          PlaceAliasedResult(*graph, i, value, alias->second, aliased));
      if (plan_.ops.size() != ops) graph.reset();
      continue;
    }
    LogicalBuffer& buffer = plan_.buffers[value];
    if (buffer.placement == LogicalBuffer::Placement::kTemp) {
      buffer.placement = LogicalBuffer::Placement::kOutput;
      buffer.number = i;
      plan_.output_buffers[i] = value;
      continue;
    }
    // A parameter, a constant or a value another result holds already.
    int64_t size = buffer.size;
    int destination = NewBuffer(absl::StrCat("result.", i), nullptr, size,
                                LogicalBuffer::Placement::kOutput, i);
    AddCopy(value, destination, absl::StrCat("result.", i));
    plan_.output_buffers[i] = destination;
  }
  // Every read of an aliased parameter's own value precedes the write of
  // its allocation (copies added above included).
  OpGraph::Edges reads_first;
  const OpGraph final_graph = Graph();
  for (const auto& [parameter, writer] : parameter_writer_) {
    for (int reader :
         final_graph.ReadersOf(plan_.parameter_buffers.at(parameter))) {
      if (reader != writer) reads_first.push_back({reader, writer});
    }
  }
  edges_.insert(edges_.end(), reads_first.begin(), reads_first.end());
  return absl::OkStatus();
}

// Topological order that keeps post order wherever the dependencies allow.
// Post order leaves a training step's weight gradients and the optimizer
// after the backward pass's chain of input gradients, so each gemm on
// that chain comes before them in the thunk sequence and never waits for
// them: a command buffer orders ops that share a workspace or a temp's
// bytes by their places in the sequence. Ordering by level (the longest
// chain of dependencies before each op) instead, which puts each weight
// gradient right after its inputs, made the f32 medium transformer's step
// 3.4% longer on an H200 (docs/benchmarks.md).
absl::Status PlanBuilder::Order() {
  const int n = plan_.ops.size();
  std::vector<std::vector<int>> successors(n);
  std::vector<int> pending(n, 0);
  {
    OpGraph graph = Graph();
    for (int op = 0; op < n; ++op) {
      successors[op] = graph.Successors(op);
      for (int next : successors[op]) ++pending[next];
    }
  }
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int op = 0; op < n; ++op) {
    if (pending[op] == 0) ready.push(op);
  }
  std::vector<PlannedOp> ordered;
  std::vector<int> position(n);
  while (!ready.empty()) {
    const int op = ready.top();
    ready.pop();
    position[op] = ordered.size();
    ordered.push_back(std::move(plan_.ops[op]));
    for (int next : successors[op]) {
      if (--pending[next] == 0) ready.push(next);
    }
  }
  if (ordered.size() != n) {
    return absl::InternalError(
        absl::StrCat(module_.name(), ": ", computation_.name(),
                     ": the ops' dependencies form a cycle"));
  }
  plan_.ops = std::move(ordered);
  // The in-place writes' edges name ops by place: they move with them.
  for (auto& [before, after] : edges_) {
    before = position[before];
    after = position[after];
  }
  return absl::OkStatus();
}

}  // namespace plan_internal

std::string LogicalBuffer::ToString() const {
  std::string text = absl::StrCat("buffer ", id, " ", name, " ", size, "B ",
                                  PlacementName(placement));
  if (number >= 0) absl::StrAppend(&text, " ", number);
  return text;
}

std::string PlannedOp::ToString() const {
  std::string text = absl::StrCat(OpKindName(kind), " ", name, " reads {",
                                  absl::StrJoin(reads, ","), "} writes {",
                                  absl::StrJoin(writes, ","), "}");
  if (kind == Kind::kGemm) absl::StrAppend(&text, " ", gemm.ToString());
  if (control != nullptr) {
    for (const ExecutionPlan& nested : control->computations) {
      absl::StrAppend(&text, "\n  ", nested.name, " {\n", nested.ToString(),
                      "  }");
    }
  }
  return text;
}

std::string ExecutionPlan::ToString() const {
  std::string text;
  for (const LogicalBuffer& buffer : buffers) {
    absl::StrAppend(&text, buffer.ToString(), "\n");
  }
  for (int i = 0; i < ops.size(); ++i) {
    absl::StrAppend(&text, i, ": ", ops[i].ToString(), "\n");
  }
  absl::StrAppend(&text, "results: {", absl::StrJoin(output_buffers, ","),
                  "}\n");
  return text;
}

bool IsLibraryGemm(const PlannedOp& op, const GemmEmission& emission) {
  return op.kind == PlannedOp::Kind::kGemm && op.program == nullptr &&
         !UsesEmittedGemmKernel(op.gemm, emission);
}

absl::StatusOr<ExecutionPlan> BuildExecutionPlan(
    const HloModule& module, const KernelEmission& emission) {
  const HloComputation& entry = *module.entry_computation();
  int64_t planned_instructions = entry.instructions().size();
  ASSIGN_OR_RETURN(FusionPlan fusion, FusionPlan::Create(entry));
  plan_internal::PlanBuilder builder(
      module, entry, plan_internal::ComputationKind::kEntry, fusion, emission,
      /*depth=*/0, &planned_instructions);
  ASSIGN_OR_RETURN(ExecutionPlan plan, builder.Build());
  VLOG(1) << module.name() << ": " << plan.ops.size() << " ops";
  VLOG(2) << plan.ToString();
  return plan;
}

}  // namespace xla_lite::gpu
