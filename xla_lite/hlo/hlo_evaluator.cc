#include "xla_lite/hlo/hlo_evaluator.h"

#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "xla_lite/hlo/hlo_evaluator_internal.h"

namespace xla_lite {
namespace {

using evaluator_internal::ApplyBinaryElement;
using evaluator_internal::MultiIndex;

// An array, or a tuple of values.
struct Value {
  Literal array;
  std::vector<Value> elements;
  bool is_tuple = false;
};

void Flatten(Value value, std::vector<Literal>* out) {
  if (!value.is_tuple) {
    out->push_back(std::move(value.array));
    return;
  }
  for (Value& element : value.elements) Flatten(std::move(element), out);
}

class Evaluator {
 public:
  absl::StatusOr<Value> Evaluate(const HloComputation& computation,
                                 std::vector<const Value*> arguments);

 private:
  absl::StatusOr<Value> EvaluateInstruction(
      const HloInstruction& instr,
      const absl::flat_hash_map<const HloInstruction*, Value>& values,
      const std::vector<const Value*>& arguments);
  absl::StatusOr<Literal> EvaluateReduce(const HloInstruction& instr,
                                         const Literal& operand,
                                         const Literal& init);
  // acc = to_apply(acc, operand[index]), both scalars of one type.
  absl::Status Accumulate(const HloComputation& to_apply,
                          const Literal& operand, int64_t index,
                          Literal* acc);
};

absl::StatusOr<Value> Evaluator::Evaluate(const HloComputation& computation,
                                          std::vector<const Value*> arguments) {
  if (static_cast<int64_t>(arguments.size()) != computation.num_parameters()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "computation ", computation.name(), " takes ",
        computation.num_parameters(), " arguments, got ", arguments.size()));
  }
  absl::flat_hash_map<const HloInstruction*, Value> values;
  for (const HloInstruction* instr : computation.MakeInstructionPostOrder()) {
    ASSIGN_OR_RETURN(Value value,
                     EvaluateInstruction(*instr, values, arguments));
    VLOG(5) << instr->name() << " = "
            << (value.is_tuple ? std::string("(tuple)")
                               : value.array.ToString());
    values[instr] = std::move(value);
  }
  return std::move(values[computation.root_instruction()]);
}

absl::StatusOr<Value> Evaluator::EvaluateInstruction(
    const HloInstruction& instr,
    const absl::flat_hash_map<const HloInstruction*, Value>& values,
    const std::vector<const Value*>& arguments) {
  std::vector<const Value*> operands;
  std::vector<const Literal*> arrays;
  for (const HloInstruction* operand : instr.operands()) {
    const Value& value = values.at(operand);
    operands.push_back(&value);
    arrays.push_back(&value.array);
  }
  Value result;
  const HloOpcode opcode = instr.opcode();
  switch (opcode) {
    case HloOpcode::kParameter:
      return *arguments.at(instr.parameter_number());
    case HloOpcode::kConstant:
      result.array = instr.literal();
      return result;
    case HloOpcode::kTuple:
      result.is_tuple = true;
      for (const Value* operand : operands) result.elements.push_back(*operand);
      return result;
    case HloOpcode::kGetTupleElement:
      return operands[0]->elements.at(instr.tuple_index());
    case HloOpcode::kCall:
    case HloOpcode::kFusion:
      return Evaluate(*instr.to_apply(), operands);
    case HloOpcode::kReduce: {
      if (instr.operand_count() != 2) {
        return absl::UnimplementedError(absl::StrCat(
            "evaluator: variadic reduce ", instr.name(), " (",
            instr.operand_count() / 2, " operands); only one is supported"));
      }
      ASSIGN_OR_RETURN(result.array,
                       EvaluateReduce(instr, *arrays[0], *arrays[1]));
      return result;
    }
    case HloOpcode::kDot: {
      ASSIGN_OR_RETURN(result.array, evaluator_internal::EvaluateDot(
                                         instr, *arrays[0], *arrays[1]));
      return result;
    }
    default:
      break;
  }
  if (IsElementwise(opcode) && opcode != HloOpcode::kCopy) {
    ASSIGN_OR_RETURN(result.array,
                     evaluator_internal::EvaluateElementwise(instr, arrays));
    return result;
  }
  ASSIGN_OR_RETURN(result.array,
                   evaluator_internal::EvaluateDataMovement(instr, arrays));
  return result;
}

absl::StatusOr<Literal> Evaluator::EvaluateReduce(const HloInstruction& instr,
                                                  const Literal& operand,
                                                  const Literal& init) {
  const std::vector<int64_t>& in_dims = operand.shape().dimensions();
  std::vector<bool> reduced(in_dims.size(), false);
  std::vector<int64_t> reduced_sizes;
  for (int64_t d : instr.dimensions()) {
    reduced[d] = true;
    reduced_sizes.push_back(in_dims[d]);
  }
  int64_t reduced_count = 1;
  for (int64_t size : reduced_sizes) reduced_count *= size;

  Literal out(instr.shape());
  const Shape scalar = Shape::Array(init.shape().element_type(), {});
  for (int64_t o = 0; o < out.element_count(); ++o) {
    std::vector<int64_t> out_index = MultiIndex(out.shape().dimensions(), o);
    std::vector<int64_t> index(in_dims.size());
    for (size_t d = 0, k = 0; d < in_dims.size(); ++d) {
      if (!reduced[d]) index[d] = out_index[k++];
    }
    Literal acc(scalar, init.bytes());
    // Row-major order over the reduced dimensions (in `dimensions` order).
    for (int64_t r = 0; r < reduced_count; ++r) {
      std::vector<int64_t> reduced_index = MultiIndex(reduced_sizes, r);
      for (size_t k = 0; k < reduced_index.size(); ++k) {
        index[instr.dimensions(k)] = reduced_index[k];
      }
      int64_t linear = evaluator_internal::LinearIndex(in_dims, index);
      RETURN_IF_ERROR(Accumulate(*instr.to_apply(), operand, linear, &acc));
    }
    std::memcpy(out.mutable_bytes().data() + o * acc.bytes().size(),
                acc.bytes().data(), acc.bytes().size());
  }
  return out;
}

absl::Status Evaluator::Accumulate(const HloComputation& to_apply,
                                   const Literal& operand, int64_t index,
                                   Literal* acc) {
  // The usual reducer, one binary op of its two parameters, is applied
  // directly; anything else is evaluated as a computation.
  const HloInstruction* root = to_apply.root_instruction();
  if (IsElementwiseBinary(root->opcode()) &&
      root->operand(0) == to_apply.parameter_instructions()[0] &&
      root->operand(1) == to_apply.parameter_instructions()[1]) {
    return ApplyBinaryElement(root->opcode(), *acc, 0, operand, index, acc, 0);
  }
  const int64_t width = acc->bytes().size();
  const uint8_t* element = operand.bytes().data() + index * width;
  Value lhs, rhs;
  lhs.array = *acc;
  rhs.array = Literal(acc->shape(), std::vector<uint8_t>(element,
                                                         element + width));
  ASSIGN_OR_RETURN(Value result, Evaluate(to_apply, {&lhs, &rhs}));
  *acc = std::move(result.array);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<Literal>> EvaluateModule(
    const HloModule& module, absl::Span<const Literal> arguments) {
  const HloComputation* entry = module.entry_computation();
  if (entry == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("module ", module.name(), " has no entry computation"));
  }
  if (static_cast<int64_t>(arguments.size()) != entry->num_parameters()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "module ", module.name(), " takes ", entry->num_parameters(),
        " arguments, got ", arguments.size()));
  }
  std::vector<Value> values(arguments.size());
  std::vector<const Value*> pointers;
  for (size_t i = 0; i < arguments.size(); ++i) {
    const Shape& expected = entry->parameter_instruction(i)->shape();
    if (!arguments[i].shape().Compatible(expected)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "argument ", i, " of module ", module.name(), " is ",
          arguments[i].shape().ToString(), ", parameter ",
          entry->parameter_instruction(i)->name(), " is ",
          expected.ToString()));
    }
    values[i].array = arguments[i];
    pointers.push_back(&values[i]);
  }
  VLOG(3) << "evaluating " << module.name();
  Evaluator evaluator;
  ASSIGN_OR_RETURN(Value result, evaluator.Evaluate(*entry, pointers));
  std::vector<Literal> flat;
  Flatten(std::move(result), &flat);
  return flat;
}

}  // namespace xla_lite
