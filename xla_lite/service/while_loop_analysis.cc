#include "xla_lite/service/while_loop_analysis.h"

#include <algorithm>

#include "xla_lite/hlo/hlo_computation.h"
#include "xla_lite/primitive_util.h"

namespace xla_lite {
namespace {

// The value of an integer scalar constant.
std::optional<int64_t> IntegerConstant(const HloInstruction* instr) {
  if (instr->opcode() != HloOpcode::kConstant || !instr->shape().IsArray() ||
      instr->shape().rank() != 0 ||
      !primitive_util::IsIntegralType(instr->shape().element_type())) {
    return std::nullopt;
  }
  return instr->literal().GetAsInt64(0);
}

// Whether `instr` is get-tuple-element(parameter 0, index).
bool IsStateElement(const HloInstruction* instr, int64_t index) {
  return instr->opcode() == HloOpcode::kGetTupleElement &&
         instr->tuple_index() == index &&
         instr->operand(0)->opcode() == HloOpcode::kParameter &&
         instr->operand(0)->parameter_number() == 0;
}

// The induction element k and the bound N of a condition `k < N`.
struct Bound {
  int64_t index;
  int64_t limit;
};
std::optional<Bound> ConditionBound(const HloComputation& condition) {
  const HloInstruction* root = condition.root_instruction();
  if (root->opcode() != HloOpcode::kCompare) return std::nullopt;
  const HloInstruction* counter = root->operand(0);
  const HloInstruction* limit = root->operand(1);
  if (root->comparison_direction() == ComparisonDirection::kGt) {
    std::swap(counter, limit);
  } else if (root->comparison_direction() != ComparisonDirection::kLt) {
    return std::nullopt;
  }
  std::optional<int64_t> n = IntegerConstant(limit);
  if (!n.has_value() || !IsStateElement(counter, counter->tuple_index())) {
    return std::nullopt;
  }
  return Bound{counter->tuple_index(), *n};
}

// Whether the body's root sets element `index` to itself plus 1.
bool StepsByOne(const HloComputation& body, int64_t index) {
  const HloInstruction* root = body.root_instruction();
  if (root->opcode() != HloOpcode::kTuple || index >= root->operand_count()) {
    return false;
  }
  const HloInstruction* next = root->operand(index);
  if (next->opcode() != HloOpcode::kAdd) return false;
  for (int side = 0; side < 2; ++side) {
    if (IsStateElement(next->operand(side), index) &&
        IntegerConstant(next->operand(1 - side)) == 1) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::optional<int64_t> KnownTripCount(const HloInstruction& while_loop) {
  if (while_loop.opcode() != HloOpcode::kWhile) return std::nullopt;
  std::optional<Bound> bound = ConditionBound(*while_loop.while_condition());
  if (!bound.has_value() ||
      !StepsByOne(*while_loop.while_body(), bound->index)) {
    return std::nullopt;
  }
  const HloInstruction* init = while_loop.operand(0);
  if (init->opcode() != HloOpcode::kTuple ||
      bound->index >= init->operand_count()) {
    return std::nullopt;
  }
  std::optional<int64_t> start = IntegerConstant(init->operand(bound->index));
  if (!start.has_value()) return std::nullopt;
  int64_t trips = 0;
  if (__builtin_sub_overflow(bound->limit, *start, &trips)) return std::nullopt;
  return std::max<int64_t>(trips, 0);
}

}  // namespace xla_lite
