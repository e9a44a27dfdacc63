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
  // What only this class can evaluate: ops that apply a computation.
  absl::StatusOr<Value> EvaluateApplying(
      const HloInstruction& instr, const std::vector<const Value*>& operands);
  absl::StatusOr<Literal> EvaluateReduce(const HloInstruction& instr,
                                         const Literal& operand,
                                         const Literal& init);
  // to_apply as a function of two elements.
  evaluator_internal::ScalarCombiner CombinerFor(
      const HloComputation& to_apply);
};

// Errors of an instruction name it and the line it came from. A call's
// errors come from inside the callee, which names its own instruction.
absl::Status Annotate(const HloInstruction& instr, const absl::Status& status) {
  if (status.ok() || instr.opcode() == HloOpcode::kCall ||
      instr.opcode() == HloOpcode::kFusion) {
    return status;
  }
  std::string where = instr.SourceLocation();
  if (!where.empty()) absl::StrAppend(&where, ": ");
  return absl::Status(
      status.code(),
      absl::StrCat(where, "instruction '", instr.name(), "' (",
                   HloOpcodeString(instr.opcode()), "): ", status.message()));
}

// Element `index` of `array` as a scalar literal.
Literal ElementAt(const Literal& array, int64_t index) {
  const int64_t width = primitive_util::ByteWidth(array.shape().element_type());
  const uint8_t* element = array.bytes().data() + index * width;
  return Literal(Shape::Array(array.shape().element_type(), {}),
                 std::vector<uint8_t>(element, element + width));
}

absl::StatusOr<Value> Evaluator::Evaluate(const HloComputation& computation,
                                          std::vector<const Value*> arguments) {
  if (static_cast<int64_t>(arguments.size()) != computation.num_parameters()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "computation ", computation.name(), " takes ",
        computation.num_parameters(), " arguments, got ", arguments.size()));
  }
  absl::flat_hash_map<const HloInstruction*, Value> values;
  for (const HloInstruction* instr : computation.MakeInstructionPostOrder()) {
    absl::StatusOr<Value> evaluated =
        EvaluateInstruction(*instr, values, arguments);
    RETURN_IF_ERROR(Annotate(*instr, evaluated.status()));
    Value value = *std::move(evaluated);
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
    case HloOpcode::kReduce:
    case HloOpcode::kScatter:
      return EvaluateApplying(instr, operands);
    case HloOpcode::kGather: {
      ASSIGN_OR_RETURN(result.array, evaluator_internal::EvaluateGather(
                                         instr, *arrays[0], *arrays[1]));
      return result;
    }
    case HloOpcode::kPad: {
      ASSIGN_OR_RETURN(result.array, evaluator_internal::EvaluatePad(
                                         instr, *arrays[0], *arrays[1]));
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

absl::StatusOr<Value> Evaluator::EvaluateApplying(
    const HloInstruction& instr, const std::vector<const Value*>& operands) {
  if (instr.opcode() == HloOpcode::kCall ||
      instr.opcode() == HloOpcode::kFusion) {
    return Evaluate(*instr.to_apply(), operands);
  }
  Value result;
  if (instr.opcode() == HloOpcode::kReduce) {
    if (instr.operand_count() != 2) {
      return absl::UnimplementedError(absl::StrCat(
          "evaluator: variadic reduce (", instr.operand_count() / 2,
          " operands); only one is supported"));
    }
    ASSIGN_OR_RETURN(result.array, EvaluateReduce(instr, operands[0]->array,
                                                  operands[1]->array));
    return result;
  }
  if (instr.operand_count() != 3) {
    return absl::UnimplementedError(
        absl::StrCat("evaluator: variadic scatter (", instr.operand_count() / 2,
                     " operands); only one is supported"));
  }
  ASSIGN_OR_RETURN(result.array,
                   evaluator_internal::EvaluateScatter(
                       instr, operands[0]->array, operands[1]->array,
                       operands[2]->array, CombinerFor(*instr.to_apply())));
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
  const evaluator_internal::ScalarCombiner combine =
      CombinerFor(*instr.to_apply());
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
      RETURN_IF_ERROR(combine(acc, 0, operand, linear, &acc, 0));
    }
    std::memcpy(out.mutable_bytes().data() + o * acc.bytes().size(),
                acc.bytes().data(), acc.bytes().size());
  }
  return out;
}

evaluator_internal::ScalarCombiner Evaluator::CombinerFor(
    const HloComputation& to_apply) {
  // The usual reducer, one binary op of its two parameters, is applied
  // directly; anything else is evaluated as a computation.
  const HloInstruction* root = to_apply.root_instruction();
  if (IsElementwiseBinary(root->opcode()) &&
      root->operand(0) == to_apply.parameter_instructions()[0] &&
      root->operand(1) == to_apply.parameter_instructions()[1]) {
    const HloOpcode opcode = root->opcode();
    return [opcode](const Literal& a, int64_t a_index, const Literal& b,
                    int64_t b_index, Literal* out, int64_t out_index) {
      return ApplyBinaryElement(opcode, a, a_index, b, b_index, out, out_index);
    };
  }
  return [this, &to_apply](const Literal& a, int64_t a_index, const Literal& b,
                           int64_t b_index, Literal* out,
                           int64_t out_index) -> absl::Status {
    Value lhs, rhs;
    lhs.array = ElementAt(a, a_index);
    rhs.array = ElementAt(b, b_index);
    ASSIGN_OR_RETURN(Value result, Evaluate(to_apply, {&lhs, &rhs}));
    const int64_t width = result.array.bytes().size();
    std::memcpy(out->mutable_bytes().data() + out_index * width,
                result.array.bytes().data(), width);
    return absl::OkStatus();
  };
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
