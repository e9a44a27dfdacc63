#include "xla_lite/hlo/hlo_evaluator.h"

#include <thread>
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
  explicit Evaluator(const EvaluatorOptions& options,
                     evaluator_internal::DeviceContext device = {})
      : options_(options), device_(std::move(device)) {}

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
  absl::StatusOr<Value> EvaluateWhile(const HloInstruction& instr,
                                      const Value& init);
  absl::StatusOr<Value> EvaluateConditional(
      const HloInstruction& instr, const std::vector<const Value*>& operands);
  // A (T, T) -> pred computation as a predicate of two elements.
  evaluator_internal::ScalarPredicate PredicateFor(
      const HloComputation& select);

  const EvaluatorOptions options_;
  // Which device of a run this evaluation is; a run of one by default.
  evaluator_internal::DeviceContext device_;
};

// Errors of an instruction name it and the line it came from. A call's
// errors come from inside the callee, which names its own instruction; a
// while or conditional adds itself in front, so the error says which loop.
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
    case HloOpcode::kReduceWindow:
    case HloOpcode::kSelectAndScatter:
      return EvaluateApplying(instr, operands);
    case HloOpcode::kWhile:
      return EvaluateWhile(instr, *operands[0]);
    case HloOpcode::kConditional:
      return EvaluateConditional(instr, operands);
    case HloOpcode::kDynamicSlice:
      result.array = evaluator_internal::EvaluateDynamicSlice(instr, arrays);
      return result;
    case HloOpcode::kDynamicUpdateSlice:
      result.array =
          evaluator_internal::EvaluateDynamicUpdateSlice(instr, arrays);
      return result;
    case HloOpcode::kConvolution: {
      ASSIGN_OR_RETURN(result.array, evaluator_internal::EvaluateConvolution(
                                         instr, *arrays[0], *arrays[1]));
      return result;
    }
    case HloOpcode::kGather: {
      ASSIGN_OR_RETURN(result.array, evaluator_internal::EvaluateGather(
                                         instr, *arrays[0], *arrays[1]));
      return result;
    }
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllGather:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kReplicaId:
    case HloOpcode::kPartitionId: {
      evaluator_internal::ScalarCombiner combine;
      if (instr.to_apply() != nullptr) combine = CombinerFor(*instr.to_apply());
      ASSIGN_OR_RETURN(result.array, evaluator_internal::EvaluateCollective(
                                         instr, arrays, device_, combine));
      return result;
    }
    case HloOpcode::kCustomCall:
      return absl::UnimplementedError(absl::StrCat(
          "evaluator: custom-call to '", instr.custom_call_target(),
          "' (shard_map modules are split into their per-device program "
          "first)"));
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
  if (instr.opcode() == HloOpcode::kReduceWindow) {
    if (instr.operand_count() != 2) {
      return absl::UnimplementedError(absl::StrCat(
          "evaluator: variadic reduce-window (", instr.operand_count() / 2,
          " operands); only one is supported"));
    }
    ASSIGN_OR_RETURN(result.array,
                     evaluator_internal::EvaluateReduceWindow(
                         instr, operands[0]->array, operands[1]->array,
                         CombinerFor(*instr.to_apply())));
    return result;
  }
  if (instr.opcode() == HloOpcode::kSelectAndScatter) {
    ASSIGN_OR_RETURN(result.array,
                     evaluator_internal::EvaluateSelectAndScatter(
                         instr, operands[0]->array, operands[1]->array,
                         operands[2]->array, PredicateFor(*instr.select()),
                         CombinerFor(*instr.to_apply())));
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

absl::StatusOr<Value> Evaluator::EvaluateWhile(const HloInstruction& instr,
                                               const Value& init) {
  Value state = init;
  for (int64_t trip = 0;; ++trip) {
    ASSIGN_OR_RETURN(Value keep_going,
                     Evaluate(*instr.while_condition(), {&state}));
    if (keep_going.array.GetAsInt64(0) == 0) {
      VLOG(3) << instr.name() << ": " << trip << " iterations";
      return state;
    }
    if (trip >= options_.max_loop_iterations) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "the loop ran ", trip, " iterations and its condition still holds ",
          "(EvaluatorOptions::max_loop_iterations)"));
    }
    ASSIGN_OR_RETURN(state, Evaluate(*instr.while_body(), {&state}));
  }
}

absl::StatusOr<Value> Evaluator::EvaluateConditional(
    const HloInstruction& instr, const std::vector<const Value*>& operands) {
  const Literal& selector = operands[0]->array;
  int64_t branch = selector.GetAsInt64(0);
  if (selector.shape().element_type() == PrimitiveType::PRED) {
    branch = branch != 0 ? 0 : 1;
  } else if (branch < 0 || branch >= instr.branch_count()) {
    branch = instr.branch_count() - 1;
  }
  return Evaluate(*instr.branch_computation(branch), {operands[branch + 1]});
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

evaluator_internal::ScalarPredicate Evaluator::PredicateFor(
    const HloComputation& select) {
  return [this, &select](const Literal& a, int64_t a_index, const Literal& b,
                         int64_t b_index) -> absl::StatusOr<bool> {
    Value lhs, rhs;
    lhs.array = ElementAt(a, a_index);
    rhs.array = ElementAt(b, b_index);
    ASSIGN_OR_RETURN(Value result, Evaluate(select, {&lhs, &rhs}));
    return result.array.GetAsDouble(0) != 0;
  };
}

}  // namespace

namespace {

// The entry's arguments as evaluator values, checked against its
// parameters.
absl::StatusOr<std::vector<Value>> EntryArguments(
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
  }
  return values;
}

absl::StatusOr<std::vector<Literal>> EvaluateAs(
    const HloModule& module, absl::Span<const Literal> arguments,
    const EvaluatorOptions& options, evaluator_internal::DeviceContext device) {
  ASSIGN_OR_RETURN(std::vector<Value> values,
                   EntryArguments(module, arguments));
  std::vector<const Value*> pointers;
  for (const Value& value : values) pointers.push_back(&value);
  VLOG(3) << "evaluating " << module.name() << " as device " << device.device;
  Evaluator evaluator(options, std::move(device));
  ASSIGN_OR_RETURN(Value result,
                   evaluator.Evaluate(*module.entry_computation(), pointers));
  std::vector<Literal> flat;
  Flatten(std::move(result), &flat);
  return flat;
}

}  // namespace

absl::StatusOr<std::vector<Literal>> EvaluateModule(
    const HloModule& module, absl::Span<const Literal> arguments,
    const EvaluatorOptions& options) {
  return EvaluateAs(module, arguments, options,
                    evaluator_internal::DeviceContext());
}

absl::StatusOr<std::vector<std::vector<Literal>>> EvaluateModuleOnDevices(
    const HloModule& module, absl::Span<const std::vector<Literal>> arguments,
    const MultiDeviceEvaluation& run) {
  const int64_t devices = run.topology.device_count();
  if (devices < 1 || static_cast<int64_t>(arguments.size()) != devices) {
    return absl::InvalidArgumentError(absl::StrCat(
        "module ", module.name(), ": ", arguments.size(),
        " argument lists for ", devices, " devices"));
  }
  evaluator_internal::EvaluatorRendezvous rendezvous(devices);
  std::vector<absl::StatusOr<std::vector<Literal>>> results(
      devices, absl::UnknownError("not run"));
  {
    std::vector<std::thread> threads;
    for (int64_t d = 0; d < devices; ++d) {
      threads.emplace_back([&, d] {
        evaluator_internal::DeviceContext device;
        device.device = d;
        device.topology = run.topology;
        device.rendezvous = &rendezvous;
        device.timeout = run.timeout;
        results[d] = EvaluateAs(module, arguments[d], EvaluatorOptions(),
                                std::move(device));
        // The others must not wait for a device that stopped.
        if (!results[d].ok()) rendezvous.Abort(results[d].status());
      });
    }
    for (std::thread& thread : threads) thread.join();
  }
  std::vector<std::vector<Literal>> out;
  for (int64_t d = 0; d < devices; ++d) {
    if (!results[d].ok()) {
      return absl::Status(results[d].status().code(),
                          absl::StrCat("device ", d, ": ",
                                       results[d].status().message()));
    }
    out.push_back(*std::move(results[d]));
  }
  return out;
}

}  // namespace xla_lite
