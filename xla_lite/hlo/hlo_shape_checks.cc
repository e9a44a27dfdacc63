#include "xla_lite/hlo/hlo_shape_checks.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "xla_lite/hlo/hlo_computation.h"
#include "xla_lite/hlo/hlo_shape_checker.h"

namespace xla_lite::verifier_internal {
namespace {

absl::Status CheckUnary(const Checker& c) {
  RETURN_IF_ERROR(c.OperandCount(1));
  RETURN_IF_ERROR(c.AllArrays());
  const HloOpcode opcode = c.instr().opcode();
  const Shape& operand = c.operand_shape(0);
  const PrimitiveType type = operand.element_type();
  const bool integer_ok = opcode == HloOpcode::kAbs ||
                          opcode == HloOpcode::kNegate ||
                          opcode == HloOpcode::kSign ||
                          opcode == HloOpcode::kCopy || opcode == HloOpcode::kNot;
  if (opcode == HloOpcode::kNot && primitive_util::IsFloatingPointType(type)) {
    return c.Error(absl::StrCat("expected a pred or integer operand, got ",
                                operand.ToString()));
  }
  if (!integer_ok && !primitive_util::IsFloatingPointType(type)) {
    return c.Error(absl::StrCat("expected a floating-point operand, got ",
                                operand.ToString()));
  }
  if (opcode == HloOpcode::kIsFinite) {
    return c.Result(Shape::Array(PrimitiveType::PRED, operand.dimensions()));
  }
  return c.Result(operand);
}

// type= must suit the operands, as XLA's verifier demands: FLOAT or
// TOTALORDER for floating point, SIGNED for signed integers, UNSIGNED for
// unsigned integers and pred.
absl::Status CheckComparisonType(const Checker& c, PrimitiveType operands) {
  const std::optional<ComparisonType>& type = c.instr().comparison_type();
  if (!type.has_value()) return absl::OkStatus();
  bool ok = false;
  switch (*type) {
    case ComparisonType::kFloat:
    case ComparisonType::kTotalOrder:
      ok = primitive_util::IsFloatingPointType(operands);
      break;
    case ComparisonType::kSigned:
      ok = primitive_util::IsSignedIntegralType(operands);
      break;
    case ComparisonType::kUnsigned:
      ok = primitive_util::IsUnsignedIntegralType(operands) ||
           operands == PrimitiveType::PRED;
      break;
  }
  if (ok) return absl::OkStatus();
  return c.Error(
      absl::StrCat("expected a comparison type for ",
                   primitive_util::LowercasePrimitiveTypeName(operands),
                   " operands, got ", ComparisonTypeString(*type)));
}

absl::Status CheckBinary(const Checker& c) {
  RETURN_IF_ERROR(c.OperandCount(2));
  RETURN_IF_ERROR(c.AllArrays());
  const Shape& lhs = c.operand_shape(0);
  RETURN_IF_ERROR(c.SameAs(1, lhs, "rhs"));
  const HloOpcode opcode = c.instr().opcode();
  const bool logical = opcode == HloOpcode::kAnd || opcode == HloOpcode::kOr ||
                       opcode == HloOpcode::kXor;
  if (logical && primitive_util::IsFloatingPointType(lhs.element_type())) {
    return c.Error(absl::StrCat("expected pred or integer operands, got ",
                                lhs.ToString()));
  }
  if (c.instr().opcode() == HloOpcode::kCompare) {
    RETURN_IF_ERROR(CheckComparisonType(c, lhs.element_type()));
    return c.Result(Shape::Array(PrimitiveType::PRED, lhs.dimensions()));
  }
  return c.Result(lhs);
}

absl::Status CheckSelect(const Checker& c) {
  RETURN_IF_ERROR(c.OperandCount(3));
  RETURN_IF_ERROR(c.AllArrays());
  const Shape& on_true = c.operand_shape(1);
  RETURN_IF_ERROR(c.SameAs(2, on_true, "on_false"));
  const Shape& pred = c.operand_shape(0);
  if (pred.element_type() != PrimitiveType::PRED ||
      (pred.rank() != 0 && pred.dimensions() != on_true.dimensions())) {
    return c.Error(absl::StrCat(
        "expected a pred predicate of shape ",
        Shape::Array(PrimitiveType::PRED, on_true.dimensions()).ToString(),
        " (or pred[]), got ", pred.ToString()));
  }
  return c.Result(on_true);
}

absl::Status CheckClamp(const Checker& c) {
  RETURN_IF_ERROR(c.OperandCount(3));
  RETURN_IF_ERROR(c.AllArrays());
  const Shape& operand = c.operand_shape(1);
  const Shape scalar = Shape::Array(operand.element_type(), {});
  for (int64_t i : {0, 2}) {
    if (!c.operand_shape(i).Compatible(scalar)) {
      RETURN_IF_ERROR(c.SameAs(i, operand, i == 0 ? "min" : "max"));
    }
  }
  return c.Result(operand);
}

absl::Status CheckBroadcast(const Checker& c) {
  RETURN_IF_ERROR(c.OperandCount(1));
  RETURN_IF_ERROR(c.AllArrays());
  const Shape& operand = c.operand_shape(0);
  const Shape& shape = c.instr().shape();
  const std::vector<int64_t>& dims = c.instr().dimensions();
  if (static_cast<int64_t>(dims.size()) != operand.rank()) {
    return c.Error(absl::StrCat("expected ", operand.rank(),
                                " broadcast dimensions (the operand's rank), "
                                "got ", Dims(dims)));
  }
  RETURN_IF_ERROR(c.DimensionList(dims, shape.rank(), "broadcast dimensions"));
  for (size_t i = 0; i < dims.size(); ++i) {
    if (shape.dimensions(dims[i]) != operand.dimensions(i)) {
      return c.Error(absl::StrCat(
          "expected output dimension ", dims[i], " to have operand dimension ",
          i, "'s size ", operand.dimensions(i), ", got ",
          shape.ToString()));
    }
  }
  if (shape.element_type() != operand.element_type()) {
    return c.Result(Shape::Array(operand.element_type(), shape.dimensions()));
  }
  return absl::OkStatus();
}

absl::Status CheckReshapeLike(const Checker& c) {
  RETURN_IF_ERROR(c.OperandCount(1));
  RETURN_IF_ERROR(c.AllArrays());
  const Shape& operand = c.operand_shape(0);
  const Shape& shape = c.instr().shape();
  if (operand.element_type() != shape.element_type() ||
      operand.ElementCount() != shape.ElementCount()) {
    return c.Error(absl::StrCat(
        "expected a result of element type ",
        primitive_util::LowercasePrimitiveTypeName(operand.element_type()),
        " and ", operand.ElementCount(), " elements (the operand ",
        operand.ToString(), "), got ", shape.ToString()));
  }
  return absl::OkStatus();
}

absl::Status CheckTranspose(const Checker& c) {
  RETURN_IF_ERROR(c.OperandCount(1));
  RETURN_IF_ERROR(c.AllArrays());
  const Shape& operand = c.operand_shape(0);
  const std::vector<int64_t>& perm = c.instr().dimensions();
  if (static_cast<int64_t>(perm.size()) != operand.rank()) {
    return c.Error(absl::StrCat("expected a permutation of ", operand.rank(),
                                " dimensions, got ", Dims(perm)));
  }
  RETURN_IF_ERROR(c.DimensionList(perm, operand.rank(), "permutation"));
  std::vector<int64_t> dims;
  for (int64_t d : perm) dims.push_back(operand.dimensions(d));
  return c.Result(Shape::Array(operand.element_type(), dims));
}

absl::Status CheckDot(const Checker& c) {
  RETURN_IF_ERROR(c.OperandCount(2));
  RETURN_IF_ERROR(c.AllArrays());
  const Shape& lhs = c.operand_shape(0);
  const Shape& rhs = c.operand_shape(1);
  const DotDimensionNumbers& d = c.instr().dot_dimension_numbers();
  if (lhs.element_type() != rhs.element_type()) {
    return c.Error(absl::StrCat("expected operands of one element type, got ",
                                lhs.ToString(), " and ", rhs.ToString()));
  }
  if (d.lhs_batch_dimensions.size() != d.rhs_batch_dimensions.size() ||
      d.lhs_contracting_dimensions.size() !=
          d.rhs_contracting_dimensions.size()) {
    return c.Error("expected as many lhs as rhs batch dimensions, and as many "
                   "lhs as rhs contracting dimensions");
  }
  std::vector<int64_t> lhs_used = d.lhs_batch_dimensions;
  lhs_used.insert(lhs_used.end(), d.lhs_contracting_dimensions.begin(),
                  d.lhs_contracting_dimensions.end());
  std::vector<int64_t> rhs_used = d.rhs_batch_dimensions;
  rhs_used.insert(rhs_used.end(), d.rhs_contracting_dimensions.begin(),
                  d.rhs_contracting_dimensions.end());
  RETURN_IF_ERROR(c.DimensionList(lhs_used, lhs.rank(),
                                  "lhs batch and contracting dimensions"));
  RETURN_IF_ERROR(c.DimensionList(rhs_used, rhs.rank(),
                                  "rhs batch and contracting dimensions"));
  for (size_t i = 0; i < lhs_used.size(); ++i) {
    if (lhs.dimensions(lhs_used[i]) != rhs.dimensions(rhs_used[i])) {
      return c.Error(absl::StrCat(
          "expected lhs dimension ", lhs_used[i], " and rhs dimension ",
          rhs_used[i], " to have one size, got ", lhs.ToString(), " and ",
          rhs.ToString()));
    }
  }
  // Result: batch dimensions, then lhs free, then rhs free, each in order.
  std::vector<int64_t> dims;
  for (int64_t b : d.lhs_batch_dimensions) dims.push_back(lhs.dimensions(b));
  for (const auto& [shape, used] : {std::pair(&lhs, &lhs_used),
                                    std::pair(&rhs, &rhs_used)}) {
    for (int64_t i = 0; i < shape->rank(); ++i) {
      if (std::find(used->begin(), used->end(), i) == used->end()) {
        dims.push_back(shape->dimensions(i));
      }
    }
  }
  const auto& precision = c.instr().operand_precision();
  if (!precision.empty() && precision.size() != 2) {
    return c.Error(absl::StrCat("expected 2 operand_precision entries, got ",
                                precision.size()));
  }
  // The result type may differ from the operands' (bf16 x bf16 -> f32).
  return c.Result(Shape::Array(c.instr().shape().element_type(), dims));
}

// reduce(operand, init), to_apply (T, T) -> T; only the single-operand
// form (the evaluator's).
absl::Status CheckReduce(const Checker& c) {
  const int64_t count = c.instr().operand_count();
  if (count >= 4 && count % 2 == 0) {
    return c.Unimplemented(absl::StrCat(
        "variadic reduce (", count / 2,
        " operands and inits) is not supported; expected 2 operands"));
  }
  RETURN_IF_ERROR(c.OperandCount(2));
  RETURN_IF_ERROR(c.AllArrays());
  const Shape& operand = c.operand_shape(0);
  const Shape scalar = Shape::Array(operand.element_type(), {});
  RETURN_IF_ERROR(c.SameAs(1, scalar, "init value"));
  const std::vector<int64_t>& dims = c.instr().dimensions();
  RETURN_IF_ERROR(c.DimensionList(dims, operand.rank(), "reduce dimensions"));
  RETURN_IF_ERROR(
      c.ScalarBinaryComputation(c.instr().to_apply(), operand.element_type()));
  std::vector<int64_t> kept;
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (std::find(dims.begin(), dims.end(), i) == dims.end()) {
      kept.push_back(operand.dimensions(i));
    }
  }
  return c.Result(Shape::Array(operand.element_type(), kept));
}

// call and fusion: the operands are the callee's parameters.
absl::Status CheckCall(const Checker& c) {
  const HloComputation* callee = c.instr().to_apply();
  if (callee == nullptr) return c.Error("expected a called computation");
  if (callee->num_parameters() != c.instr().operand_count()) {
    return c.Error(absl::StrCat("expected ", callee->num_parameters(),
                                " operands (the parameters of '",
                                callee->name(), "'), got ",
                                c.instr().operand_count()));
  }
  for (int64_t i = 0; i < callee->num_parameters(); ++i) {
    const HloInstruction* param = callee->parameter_instruction(i);
    if (param == nullptr) {
      return c.Error(absl::StrCat("'", callee->name(), "' lacks parameter ", i));
    }
    RETURN_IF_ERROR(c.SameAs(i, param->shape(),
                             absl::StrCat("argument for ", param->name())));
  }
  if (callee->root_instruction() == nullptr) {
    return c.Error(absl::StrCat("'", callee->name(), "' has no root"));
  }
  return c.Result(callee->root_instruction()->shape());
}

absl::Status CheckStructural(const Checker& c) {
  const HloInstruction& instr = c.instr();
  switch (instr.opcode()) {
    case HloOpcode::kParameter:
      return c.OperandCount(0);
    case HloOpcode::kConstant:
      RETURN_IF_ERROR(c.OperandCount(0));
      return c.Result(instr.literal().shape());
    case HloOpcode::kIota:
      RETURN_IF_ERROR(c.OperandCount(0));
      RETURN_IF_ERROR(c.AllArrays());
      if (instr.iota_dimension() < 0 ||
          instr.iota_dimension() >= instr.shape().rank()) {
        return c.Error(absl::StrCat("expected iota_dimension in [0, ",
                                    instr.shape().rank(), "), got ",
                                    instr.iota_dimension()));
      }
      return absl::OkStatus();
    case HloOpcode::kTuple: {
      std::vector<Shape> elements;
      for (const HloInstruction* operand : instr.operands()) {
        elements.push_back(operand->shape());
      }
      return c.Result(Shape::Tuple(std::move(elements)));
    }
    case HloOpcode::kGetTupleElement: {
      RETURN_IF_ERROR(c.OperandCount(1));
      const Shape& tuple = c.operand_shape(0);
      if (!tuple.IsTuple()) {
        return c.Error(absl::StrCat("expected a tuple operand, got ",
                                    tuple.ToString()));
      }
      if (instr.tuple_index() < 0 ||
          instr.tuple_index() >= tuple.tuple_shapes_size()) {
        return c.Error(absl::StrCat("expected index in [0, ",
                                    tuple.tuple_shapes_size(), "), got ",
                                    instr.tuple_index()));
      }
      return c.Result(tuple.tuple_shapes(instr.tuple_index()));
    }
    default:
      return CheckCall(c);
  }
}

absl::Status CheckSlice(const Checker& c) {
  RETURN_IF_ERROR(c.OperandCount(1));
  RETURN_IF_ERROR(c.AllArrays());
  const Shape& operand = c.operand_shape(0);
  const auto& slice = c.instr().slice_dimensions();
  if (static_cast<int64_t>(slice.size()) != operand.rank()) {
    return c.Error(absl::StrCat("expected ", operand.rank(),
                                " slice dimensions, got ", slice.size()));
  }
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < operand.rank(); ++d) {
    const SliceDimension& s = slice[d];
    if (s.start < 0 || s.start > s.limit || s.limit > operand.dimensions(d) ||
        s.stride < 1) {
      return c.Error(absl::StrCat(
          "expected 0 <= start <= limit <= ", operand.dimensions(d),
          " and stride >= 1 in dimension ", d, ", got [", s.start, ":",
          s.limit, ":", s.stride, "]"));
    }
    dims.push_back((s.limit - s.start + s.stride - 1) / s.stride);
  }
  return c.Result(Shape::Array(operand.element_type(), dims));
}

absl::Status CheckConcatenate(const Checker& c) {
  const HloInstruction& instr = c.instr();
  if (instr.operand_count() < 1) return c.Error("expected operands, got none");
  RETURN_IF_ERROR(c.AllArrays());
  const Shape& first = c.operand_shape(0);
  if (instr.dimensions().size() != 1 || instr.dimensions(0) < 0 ||
      instr.dimensions(0) >= first.rank()) {
    return c.Error(absl::StrCat("expected one dimension in [0, ", first.rank(),
                                "), got ", Dims(instr.dimensions())));
  }
  const int64_t dim = instr.dimensions(0);
  std::vector<int64_t> dims = first.dimensions();
  dims[dim] = 0;
  for (int64_t i = 0; i < instr.operand_count(); ++i) {
    std::vector<int64_t> expected = first.dimensions();
    expected[dim] = c.operand_shape(i).rank() == first.rank()
                        ? c.operand_shape(i).dimensions(dim)
                        : 0;
    RETURN_IF_ERROR(c.SameAs(i, Shape::Array(first.element_type(), expected),
                             "concatenated operand"));
    dims[dim] += expected[dim];
  }
  return c.Result(Shape::Array(first.element_type(), dims));
}

absl::Status CheckDataMovement(const Checker& c) {
  switch (c.instr().opcode()) {
    case HloOpcode::kSlice:
      return CheckSlice(c);
    case HloOpcode::kConcatenate:
      return CheckConcatenate(c);
    case HloOpcode::kGather:
      return CheckGather(c);
    case HloOpcode::kScatter:
      return CheckScatter(c);
    case HloOpcode::kDynamicSlice:
      return CheckDynamicSlice(c);
    case HloOpcode::kDynamicUpdateSlice:
      return CheckDynamicUpdateSlice(c);
    case HloOpcode::kPad:
      return CheckPad(c);
    case HloOpcode::kReverse:
      RETURN_IF_ERROR(c.OperandCount(1));
      RETURN_IF_ERROR(c.AllArrays());
      RETURN_IF_ERROR(c.DimensionList(c.instr().dimensions(),
                                      c.operand_shape(0).rank(),
                                      "reverse dimensions"));
      return c.Result(c.operand_shape(0));
    default:
      return c.Error("expected an opcode the verifier knows");
  }
}

}  // namespace

absl::Status CheckInstructionShape(const HloInstruction& instr) {
  Checker c(instr);
  const HloOpcode opcode = instr.opcode();
  if (IsElementwiseUnary(opcode)) return CheckUnary(c);
  if (IsElementwiseBinary(opcode) || opcode == HloOpcode::kCompare) {
    return CheckBinary(c);
  }
  switch (opcode) {
    case HloOpcode::kSelect:
      return CheckSelect(c);
    case HloOpcode::kClamp:
      return CheckClamp(c);
    case HloOpcode::kConvert: {
      RETURN_IF_ERROR(c.OperandCount(1));
      RETURN_IF_ERROR(c.AllArrays());
      return c.Result(Shape::Array(instr.shape().element_type(),
                                   c.operand_shape(0).dimensions()));
    }
    case HloOpcode::kBroadcast:
      return CheckBroadcast(c);
    case HloOpcode::kReshape:
    case HloOpcode::kBitcast:
      return CheckReshapeLike(c);
    case HloOpcode::kTranspose:
      return CheckTranspose(c);
    case HloOpcode::kDot:
      return CheckDot(c);
    case HloOpcode::kReduce:
      return CheckReduce(c);
    case HloOpcode::kWhile:
      return CheckWhile(c);
    case HloOpcode::kConditional:
      return CheckConditional(c);
    case HloOpcode::kConvolution:
    case HloOpcode::kReduceWindow:
    case HloOpcode::kSelectAndScatter:
      return CheckWindowed(c);
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllGather:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kReplicaId:
    case HloOpcode::kPartitionId:
    case HloOpcode::kCustomCall:
      return CheckCollective(c);
    case HloOpcode::kParameter:
    case HloOpcode::kConstant:
    case HloOpcode::kIota:
    case HloOpcode::kTuple:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kCall:
    case HloOpcode::kFusion:
      return CheckStructural(c);
    default:
      return CheckDataMovement(c);
  }
}

}  // namespace xla_lite::verifier_internal
