#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "xla_lite/service/execution_plan.h"
#include "xla_lite/service/execution_plan_builder.h"
#include "xla_lite/service/while_loop_analysis.h"

namespace xla_lite::gpu {

int64_t LeafCount(const Shape& shape) {
  if (!shape.IsTuple()) return 1;
  int64_t count = 0;
  for (const Shape& element : shape.tuple_shapes()) count += LeafCount(element);
  return count;
}

namespace plan_internal {

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
            absl::StrCat(instr->name(), ".", i), nullptr, arrays[i]->ByteSize(),
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

// A nested computation's plan; its parameter and results must have the
// leaves its caller binds them to.
absl::StatusOr<ExecutionPlan> PlanBuilder::PlanComputation(
    const HloInstruction& caller, const HloComputation& computation,
    ComputationKind kind, int64_t parameter_leaves,
    int64_t result_leaves) const {
  // A computation run by several whiles is planned for each, so loops
  // that share bodies could multiply the work: the whole program's
  // planning has a budget.
  *planned_instructions_ += computation.instructions().size();
  if (*planned_instructions_ > kMaxPlannedInstructions) {
    return absl::InvalidArgumentError(absl::StrCat(
        caller.name(), ": the program's loops and branches plan more than ",
        kMaxPlannedInstructions,
        " instructions (a computation is planned once per while or "
        "conditional that runs it)"));
  }
  if (depth_ + 1 > kMaxControlFlowDepth) {
    return absl::InvalidArgumentError(
        absl::StrCat(caller.name(), ": control flow nests deeper than ",
                     kMaxControlFlowDepth, " levels"));
  }
  if (computation.num_parameters() != 1 ||
      LeafCount(computation.parameter_instruction(0)->shape()) !=
          parameter_leaves ||
      LeafCount(computation.root_instruction()->shape()) != result_leaves) {
    return absl::InvalidArgumentError(
        absl::StrCat(caller.name(), ": ", computation.name(),
                     " does not take one parameter of ", parameter_leaves,
                     " leaves and return ", result_leaves));
  }
  ASSIGN_OR_RETURN(FusionPlan fusion, FusionPlan::Create(computation));
  PlanBuilder builder(module_, computation, kind, fusion, emission_,
                      depth_ + 1, planned_instructions_);
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
  control->known_trip_count = KnownTripCount(*instr).value_or(-1);
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
    ASSIGN_OR_RETURN(ExecutionPlan branch,
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
        "input_output_alias {", absl::StrJoin(alias.output_index, ","), "}: (",
        alias.parameter_number, ", {",
        absl::StrJoin(alias.parameter_index, ","), "})");
    if (!alias.parameter_index.empty()) {
      return absl::UnimplementedError(absl::StrCat(
          text,
          ": parameters are flat arrays, so the parameter index must "
          "be {}"));
    }
    if (alias.output_index.size() != (is_tuple ? 1 : 0) ||
        (is_tuple &&
         (alias.output_index[0] < 0 || alias.output_index[0] >= results)) ||
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

}  // namespace plan_internal
}  // namespace xla_lite::gpu
