#include "xla_lite/service/execution_plan.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <queue>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "xla_lite/service/convolution/windowed_kernels.h"
#include "xla_lite/service/collective_lowering.h"
#include "xla_lite/service/elemental_lowering.h"
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

// Which computation a plan is for: it decides how results relate to
// parameters (see ControlFlowPlan).
enum class ComputationKind { kEntry, kCondition, kBody, kBranch };

// Builds the plan: buffers and ops in post order, result placement,
// multi-output fusion of loop kernels, then the execution order.
class PlanBuilder {
 public:
  PlanBuilder(const HloModule& module, const HloComputation& computation,
              ComputationKind kind, const FusionPlan& fusion,
              const GemmEmission& emission, int depth)
      : module_(module),
        computation_(computation),
        kind_(kind),
        fusion_(fusion),
        emission_(emission),
        depth_(depth) {}

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
    return it != leaves_.end() ? it->second
                               : std::vector<int>{BufferOf(instr)};
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
  absl::Status PlaceAliasedResult(int64_t index, int value, int64_t parameter,
                                  const absl::flat_hash_set<int64_t>& aliased);
  int AddCopy(int source, int destination, const std::string& name);
  bool CanWriteInPlace(int op, int value, int parameter_buffer) const;
  absl::Status Order();

  OpGraph Graph() const { return OpGraph(plan_.ops, edges_); }

  const HloModule& module_;
  const HloComputation& computation_;
  const ComputationKind kind_;
  const FusionPlan& fusion_;
  const GemmEmission& emission_;
  const int depth_;
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

// Tuples, get-tuple-elements and tuple-shaped parameters, whiles and
// conditionals: their leaves' buffers, new ones where the value defines
// them. False for any other instruction.
bool PlanBuilder::AddTupleValue(const HloInstruction* instr) {
  using Placement = LogicalBuffer::Placement;
  std::vector<int> leaves;
  switch (instr->opcode()) {
    case HloOpcode::kTuple:
      for (const HloInstruction* operand : instr->operands()) {
        std::vector<int> more = LeavesOf(operand);
        leaves.insert(leaves.end(), more.begin(), more.end());
      }
      break;
    case HloOpcode::kGetTupleElement: {
      const Shape& tuple = instr->operand(0)->shape();
      int64_t first = 0;
      for (int64_t i = 0; i < instr->tuple_index(); ++i) {
        first += LeafCount(tuple.tuple_shapes(i));
      }
      std::vector<int> all = LeavesOf(instr->operand(0));
      leaves.assign(all.begin() + first,
                    all.begin() + first + LeafCount(instr->shape()));
      if (instr->shape().IsArray()) {
        buffer_of_[instr] = leaves[0];
        return true;
      }
      break;
    }
    case HloOpcode::kParameter:
    case HloOpcode::kWhile:
    case HloOpcode::kConditional: {
      if (!instr->shape().IsTuple()) return false;
      const bool parameter = instr->opcode() == HloOpcode::kParameter;
      std::vector<const Shape*> arrays;
      std::function<void(const Shape&)> flatten = [&](const Shape& shape) {
        if (!shape.IsTuple()) return arrays.push_back(&shape);
        for (const Shape& element : shape.tuple_shapes()) flatten(element);
      };
      flatten(instr->shape());
      for (int64_t i = 0; i < arrays.size(); ++i) {
        leaves.push_back(NewBuffer(
            absl::StrCat(instr->name(), ".", i), nullptr,
            arrays[i]->ByteSize(),
            parameter ? Placement::kParameter : Placement::kTemp,
            parameter ? i : -1));
      }
      break;
    }
    default:
      return false;
  }
  leaves_[instr] = std::move(leaves);
  return true;
}

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
    plan_.parameter_buffers =
        LeavesOf(computation_.parameter_instruction(0));
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
        epilogue == nullptr
            ? absl::FailedPreconditionError("no epilogue")
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
  op.program = std::move(lowered.program);
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
    fill.program = std::move(lowered.program);
  }
  fill.writes = {out};
  ASSIGN_OR_RETURN(LoweredKernel lowered, LowerScatter(scatter, is_materialized));
  PlannedOp::Stage update;
  for (const HloInstruction* input : lowered.inputs) {
    update.reads.push_back(BufferOf(input));
  }
  update.writes = {out};
  update.program = std::move(lowered.program);
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
  op.gemm = lowering.config;
  AddOp(std::move(op));
  return absl::OkStatus();
}

absl::Status PlanBuilder::AddWindowKernel(const HloInstruction* instr) {
  RETURN_IF_ERROR(CheckWindowedKernel(*instr));
  PlannedOp op;
  op.kind = PlannedOp::Kind::kWindowKernel;
  op.name = instr->name();
  op.roots = {instr};
  for (const HloInstruction* operand : instr->operands()) {
    if (operand->shape().rank() > 0) op.reads.push_back(BufferOf(operand));
  }
  op.writes = {BufferOf(instr)};
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
  op.gemm = std::move(lowering.config);
  AddOp(std::move(op));
  return absl::OkStatus();
}

// A nested computation's plan; its parameter and results must have the
// leaves its caller binds them to.
absl::StatusOr<ExecutionPlan> PlanBuilder::PlanComputation(
    const HloInstruction& caller, const HloComputation& computation,
    ComputationKind kind, int64_t parameter_leaves,
    int64_t result_leaves) const {
  if (depth_ + 1 > kMaxControlFlowDepth) {
    return absl::InvalidArgumentError(absl::StrCat(
        caller.name(), ": control flow nests deeper than ",
        kMaxControlFlowDepth, " levels"));
  }
  if (computation.num_parameters() != 1 ||
      LeafCount(computation.parameter_instruction(0)->shape()) !=
          parameter_leaves ||
      LeafCount(computation.root_instruction()->shape()) != result_leaves) {
    return absl::InvalidArgumentError(absl::StrCat(
        caller.name(), ": ", computation.name(),
        " does not take one parameter of ", parameter_leaves,
        " leaves and return ", result_leaves));
  }
  ASSIGN_OR_RETURN(FusionPlan fusion, FusionPlan::Create(computation));
  PlanBuilder builder(module_, computation, kind, fusion, emission_,
                      depth_ + 1);
  return builder.Build();
}

absl::Status PlanBuilder::AddWhile(const HloInstruction* instr) {
  auto control = std::make_shared<ControlFlowPlan>();
  const std::vector<int> state = LeavesOf(instr);
  const int64_t n = state.size();
  ASSIGN_OR_RETURN(ExecutionPlan condition,
                   PlanComputation(*instr, *instr->while_condition(),
                                   ComputationKind::kCondition, n, 1));
  ASSIGN_OR_RETURN(ExecutionPlan body,
                   PlanComputation(*instr, *instr->while_body(),
                                   ComputationKind::kBody, n, n));
  control->computations.push_back(std::move(condition));
  control->computations.push_back(std::move(body));
  PlannedOp op;
  op.kind = PlannedOp::Kind::kWhile;
  op.name = instr->name();
  op.reads = LeavesOf(instr->operand(0));
  op.writes = state;
  op.control = std::move(control);
  AddOp(std::move(op));
  return absl::OkStatus();
}

absl::Status PlanBuilder::AddConditional(const HloInstruction* instr) {
  auto control = std::make_shared<ControlFlowPlan>();
  const std::vector<int> results = LeavesOf(instr);
  PlannedOp op;
  op.kind = PlannedOp::Kind::kConditional;
  op.name = instr->name();
  control->selector = BufferOf(instr->operand(0));
  op.reads = {control->selector};
  for (int64_t k = 0; k + 1 < instr->operand_count(); ++k) {
    std::vector<int> operand = LeavesOf(instr->operand(k + 1));
    ASSIGN_OR_RETURN(
        ExecutionPlan branch,
        PlanComputation(*instr, *instr->branch_computation(k),
                        ComputationKind::kBranch, operand.size(),
                        results.size()));
    control->computations.push_back(std::move(branch));
    op.reads.insert(op.reads.end(), operand.begin(), operand.end());
    control->branch_operands.push_back(std::move(operand));
  }
  op.writes = results;
  op.control = std::move(control);
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
    int64_t index, int value, int64_t parameter,
    const absl::flat_hash_set<int64_t>& aliased) {
  const int parameter_buffer = plan_.parameter_buffers.at(parameter);
  if (value == parameter_buffer) {  // Returned unchanged: nothing to do.
    plan_.output_buffers[index] = value;
    return absl::OkStatus();
  }
  // Copied: NewBuffer below may move the buffers.
  const LogicalBuffer buffer = plan_.buffers[value];
  int writer = Graph().WriterOf(value);
  if (buffer.placement == LogicalBuffer::Placement::kTemp && writer >= 0 &&
      CanWriteInPlace(writer, value, parameter_buffer)) {
    bool ordered = true;
    OpGraph graph = Graph();
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

// Per result with an alias: the parameter it is written into. The entry's
// come from the module's input_output_alias; a loop body's result leaf i
// is its parameter leaf i, the loop state.
absl::StatusOr<absl::flat_hash_map<int64_t, int64_t>>
PlanBuilder::ResultAliases(int64_t results) const {
  absl::flat_hash_map<int64_t, int64_t> alias_of_output;
  if (kind_ == ComputationKind::kBody) {
    if (results != plan_.parameter_buffers.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          computation_.name(), ": a loop body returns ", results,
          " leaves for a state of ", plan_.parameter_buffers.size()));
    }
    for (int64_t i = 0; i < results; ++i) alias_of_output[i] = i;
    return alias_of_output;
  }
  if (kind_ != ComputationKind::kEntry) return alias_of_output;
  const bool is_tuple =
      computation_.root_instruction()->opcode() == HloOpcode::kTuple;
  for (const HloInputOutputAlias& alias : module_.input_output_aliases()) {
    std::string text = absl::StrCat(
        "input_output_alias {", absl::StrJoin(alias.output_index, ","),
        "}: (", alias.parameter_number, ", {",
        absl::StrJoin(alias.parameter_index, ","), "})");
    if (!alias.parameter_index.empty()) {
      return absl::UnimplementedError(absl::StrCat(
          text, ": parameters are flat arrays, so the parameter index must "
                "be {}"));
    }
    if (alias.output_index.size() != (is_tuple ? 1 : 0) ||
        (is_tuple && (alias.output_index[0] < 0 ||
                      alias.output_index[0] >= results)) ||
        alias.parameter_number < 0 ||
        alias.parameter_number >= computation_.num_parameters()) {
      return absl::InvalidArgumentError(absl::StrCat(
          text, " does not name a result of the ",
          is_tuple ? "root tuple" : "array root", " and a parameter"));
    }
    alias_of_output[is_tuple ? alias.output_index[0] : 0] =
        alias.parameter_number;
  }
  return alias_of_output;
}

absl::Status PlanBuilder::PlaceResults() {
  const std::vector<int> results = LeavesOf(computation_.root_instruction());
  plan_.output_buffers.assign(results.size(), -1);
  ASSIGN_OR_RETURN(auto alias_of_output, ResultAliases(results.size()));
  absl::flat_hash_set<int64_t> aliased;
  for (const auto& [output, parameter] : alias_of_output) {
    aliased.insert(parameter);
  }
  for (int64_t i = 0; i < results.size(); ++i) {
    int value = results[i];
    auto alias = alias_of_output.find(i);
    if (alias != alias_of_output.end()) {
      RETURN_IF_ERROR(PlaceAliasedResult(i, value, alias->second, aliased));
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
  for (const auto& [parameter, writer] : parameter_writer_) {
    for (int reader : Graph().ReadersOf(plan_.parameter_buffers.at(parameter))) {
      if (reader != writer) edges_.push_back({reader, writer});
    }
  }
  return absl::OkStatus();
}

// Topological order that keeps post order wherever the dependencies allow.
absl::Status PlanBuilder::Order() {
  const int n = plan_.ops.size();
  std::vector<std::vector<int>> successors(n);
  std::vector<int> pending(n, 0);
  OpGraph graph = Graph();
  for (int op = 0; op < n; ++op) {
    successors[op] = graph.Successors(op);
    for (int next : successors[op]) ++pending[next];
  }
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int op = 0; op < n; ++op) {
    if (pending[op] == 0) ready.push(op);
  }
  std::vector<PlannedOp> ordered;
  while (!ready.empty()) {
    int op = ready.top();
    ready.pop();
    ordered.push_back(std::move(plan_.ops[op]));
    for (int next : successors[op]) {
      if (--pending[next] == 0) ready.push(next);
    }
  }
  if (ordered.size() != n) {
    return absl::InternalError(absl::StrCat(
        module_.name(), ": ", computation_.name(),
        ": the ops' dependencies form a cycle"));
  }
  plan_.ops = std::move(ordered);
  return absl::OkStatus();
}

}  // namespace

int64_t LeafCount(const Shape& shape) {
  if (!shape.IsTuple()) return 1;
  int64_t count = 0;
  for (const Shape& element : shape.tuple_shapes()) count += LeafCount(element);
  return count;
}

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

absl::StatusOr<ExecutionPlan> BuildExecutionPlan(const HloModule& module,
                                                 const GemmEmission& emission) {
  const HloComputation& entry = *module.entry_computation();
  ASSIGN_OR_RETURN(FusionPlan fusion, FusionPlan::Create(entry));
  PlanBuilder builder(module, entry, ComputationKind::kEntry, fusion,
                      emission, /*depth=*/0);
  ASSIGN_OR_RETURN(ExecutionPlan plan, builder.Build());
  VLOG(1) << module.name() << ": " << plan.ops.size() << " ops";
  VLOG(2) << plan.ToString();
  return plan;
}

}  // namespace xla_lite::gpu
