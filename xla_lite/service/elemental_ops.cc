#include "xla_lite/service/elemental_ops.h"

#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "xla_lite/hlo/hlo_computation.h"
#include "xla_lite/service/elemental_scalar_ops.h"
#include "xla_lite/service/hlo_rewrite_util.h"

namespace xla_lite::gpu {
namespace {

// The host side of a ScalarFunction: F, compiled from the shared text,
// applied lane by lane to the register class of each argument and result.
template <typename T>
T LaneValue(const ScalarLanes& lanes, int operand, int64_t lane);
template <>
float LaneValue<float>(const ScalarLanes& lanes, int operand, int64_t lane) {
  return lanes.f[operand][lane];
}
template <>
int LaneValue<int>(const ScalarLanes& lanes, int operand, int64_t lane) {
  return lanes.i[operand][lane];
}
template <>
bool LaneValue<bool>(const ScalarLanes& lanes, int operand, int64_t lane) {
  return lanes.i[operand][lane] != 0;
}

void SetLane(const ScalarLanes& lanes, int64_t lane, float value) {
  lanes.out_f[lane] = value;
}
void SetLane(const ScalarLanes& lanes, int64_t lane, int value) {
  lanes.out_i[lane] = value;
}
void SetLane(const ScalarLanes& lanes, int64_t lane, bool value) {
  lanes.out_i[lane] = value ? 1 : 0;
}

template <typename Function>
struct Signature;
template <typename R, typename A>
struct Signature<R (*)(A)> {
  static constexpr int kArity = 1;
  using Arg0 = A;
  using Arg1 = A;
};
template <typename R, typename A, typename B>
struct Signature<R (*)(A, B)> {
  static constexpr int kArity = 2;
  using Arg0 = A;
  using Arg1 = B;
};

template <auto F>
void ApplyToLanes(const ScalarLanes& lanes) {
  using S = Signature<decltype(F)>;
  for (int64_t l = 0; l < lanes.count; ++l) {
    if constexpr (S::kArity == 1) {
      SetLane(lanes, l, F(LaneValue<typename S::Arg0>(lanes, 0, l)));
    } else {
      SetLane(lanes, l,
              F(LaneValue<typename S::Arg0>(lanes, 0, l),
                LaneValue<typename S::Arg1>(lanes, 1, l)));
    }
  }
}

// The function `fn` of elemental_scalar_ops.inc, for both back ends.
// clang-format off
#define XL_SCALAR(fn) ScalarFunction{#fn, &ApplyToLanes<scalar_ops::fn>}
// clang-format on

constexpr TypeSet kAnyType = {
    PrimitiveType::PRED, PrimitiveType::S8,   PrimitiveType::S16,
    PrimitiveType::S32,  PrimitiveType::S64,  PrimitiveType::U8,
    PrimitiveType::U16,  PrimitiveType::U32,  PrimitiveType::U64,
    PrimitiveType::F16,  PrimitiveType::BF16, PrimitiveType::F32,
    PrimitiveType::F64};

// A scalar function of its operands, taking the classes it has functions
// for.
ElementalOp Scalar(HloOpcode opcode, int arity, int cost,
                   ScalarFunction on_float, ScalarFunction on_s32 = {},
                   ScalarFunction on_pred = {}) {
  TypeSet types;
  if (on_float.exists()) types = types | kFloatKernelTypes;
  if (on_s32.exists()) types = types | TypeSet{PrimitiveType::S32};
  if (on_pred.exists()) types = types | TypeSet{PrimitiveType::PRED};
  ElementalOp op{opcode, arity, FusionKind::kElementwise,
                 OpLowering::kScalarFunction, cost, types};
  op.on_float = on_float;
  op.on_s32 = on_s32;
  op.on_pred = on_pred;
  return op;
}

ElementalOp Reducer(ElementalOp op) {
  op.reducer = true;
  return op;
}

ElementalOp Other(HloOpcode opcode, int arity, FusionKind fusion,
                  OpLowering lowering, int cost, TypeSet types) {
  return {opcode, arity, fusion, lowering, cost, types};
}

constexpr int kArithmetic = 1;
// What every platform's communicators carry and reduce.
constexpr TypeSet kCollectiveTypes = {PrimitiveType::F32, PrimitiveType::BF16,
                                      PrimitiveType::S32};
constexpr int kExpensive = 4;  // Division and transcendentals.

std::vector<ElementalOp> MakeTable() {
  using H = HloOpcode;
  using F = FusionKind;
  using L = OpLowering;
  const ScalarFunction none;
  std::vector<ElementalOp> ops = {
      Scalar(H::kAbs, 1, kArithmetic, XL_SCALAR(xl_abs_f32),
             XL_SCALAR(xl_abs_s32)),
      Reducer(Scalar(H::kAdd, 2, kArithmetic, XL_SCALAR(xl_add_f32),
                     XL_SCALAR(xl_add_s32), XL_SCALAR(xl_or_pred))),
      Reducer(Scalar(H::kAnd, 2, kArithmetic, none, XL_SCALAR(xl_and_s32),
                     XL_SCALAR(xl_and_pred))),
      Other(H::kBroadcast, 1, F::kDataMovement, L::kIndexRemap, 0,
            kKernelTypes),
      Scalar(H::kCeil, 1, kArithmetic, XL_SCALAR(xl_ceil_f32)),
      Other(H::kAllReduce, 1, F::kNotFusible, L::kCollective, 0,
            kCollectiveTypes),
      Other(H::kAllGather, 1, F::kNotFusible, L::kCollective, 0,
            kCollectiveTypes),
      Other(H::kReduceScatter, 1, F::kNotFusible, L::kCollective, 0,
            kCollectiveTypes),
      Other(H::kCollectivePermute, 1, F::kNotFusible, L::kCollective, 0,
            kCollectiveTypes),
      Other(H::kClamp, 3, F::kElementwise, L::kClamp, kArithmetic,
            kKernelTypes),
      Other(H::kCompare, 2, F::kElementwise, L::kCompare, kArithmetic,
            kKernelTypes),
      Other(H::kConcatenate, -1, F::kDataMovement, L::kConcatenate, 0,
            kKernelTypes),
      Other(H::kConstant, 0, F::kNotFusible, L::kBuffer, 0, kAnyType),
      Other(H::kConvert, 1, F::kElementwise, L::kConvert, kArithmetic,
            kKernelTypes),
      Other(H::kConvolution, 2, F::kNotFusible, L::kWindowKernel, 0,
            {PrimitiveType::F32}),
      Other(H::kCopy, 1, F::kElementwise, L::kCopy, kArithmetic, kKernelTypes),
      Scalar(H::kCos, 1, kExpensive, XL_SCALAR(xl_cos_f32)),
      Scalar(H::kDivide, 2, kExpensive, XL_SCALAR(xl_divide_f32),
             XL_SCALAR(xl_divide_s32)),
      Other(H::kDot, 2, F::kNotFusible, L::kGemm, 0,
            {PrimitiveType::F32, PrimitiveType::BF16}),
      Scalar(H::kExp, 1, kExpensive, XL_SCALAR(xl_exp_f32)),
      Scalar(H::kExpm1, 1, kExpensive, XL_SCALAR(xl_expm1_f32)),
      Scalar(H::kFloor, 1, kArithmetic, XL_SCALAR(xl_floor_f32)),
      Other(H::kGather, 2, F::kDataMovement, L::kGather, 0, kKernelTypes),
      Other(H::kIota, 0, F::kDataMovement, L::kIota, 0, kKernelTypes),
      Scalar(H::kIsFinite, 1, kArithmetic, XL_SCALAR(xl_is_finite_f32)),
      Scalar(H::kLog, 1, kExpensive, XL_SCALAR(xl_log_f32)),
      Scalar(H::kLog1p, 1, kExpensive, XL_SCALAR(xl_log1p_f32)),
      Scalar(H::kLogistic, 1, kExpensive, XL_SCALAR(xl_logistic_f32)),
      Reducer(Scalar(H::kMaximum, 2, kArithmetic, XL_SCALAR(xl_maximum_f32),
                     XL_SCALAR(xl_maximum_s32), XL_SCALAR(xl_or_pred))),
      Reducer(Scalar(H::kMinimum, 2, kArithmetic, XL_SCALAR(xl_minimum_f32),
                     XL_SCALAR(xl_minimum_s32), XL_SCALAR(xl_and_pred))),
      Reducer(Scalar(H::kMultiply, 2, kArithmetic, XL_SCALAR(xl_multiply_f32),
                     XL_SCALAR(xl_multiply_s32), XL_SCALAR(xl_and_pred))),
      Scalar(H::kNegate, 1, kArithmetic, XL_SCALAR(xl_negate_f32),
             XL_SCALAR(xl_negate_s32)),
      Scalar(H::kNot, 1, kArithmetic, none, XL_SCALAR(xl_not_s32),
             XL_SCALAR(xl_not_pred)),
      Reducer(Scalar(H::kOr, 2, kArithmetic, none, XL_SCALAR(xl_or_s32),
                     XL_SCALAR(xl_or_pred))),
      Other(H::kPad, 2, F::kDataMovement, L::kPad, 0, kKernelTypes),
      Other(H::kParameter, 0, F::kNotFusible, L::kBuffer, 0, kAnyType),
      Scalar(H::kPower, 2, kExpensive, XL_SCALAR(xl_power_f32),
             XL_SCALAR(xl_power_s32)),
      Other(H::kReduce, 2, F::kReduction, L::kReduce, 0, kKernelTypes),
      Scalar(H::kRemainder, 2, kExpensive, XL_SCALAR(xl_remainder_f32),
             XL_SCALAR(xl_remainder_s32)),
      Other(H::kReduceWindow, 2, F::kNotFusible, L::kWindowKernel, 0,
            {PrimitiveType::F32}),
      Other(H::kReshape, 1, F::kDataMovement, L::kIndexRemap, 0, kKernelTypes),
      Other(H::kReverse, 1, F::kDataMovement, L::kIndexRemap, 0, kKernelTypes),
      Scalar(H::kRsqrt, 1, kExpensive, XL_SCALAR(xl_rsqrt_f32)),
      Other(H::kScatter, 3, F::kScatter, L::kScatter, 0, kKernelTypes),
      Other(H::kSelect, 3, F::kElementwise, L::kSelect, kArithmetic,
            kKernelTypes),
      Other(H::kSelectAndScatter, 3, F::kNotFusible, L::kWindowKernel, 0,
            {PrimitiveType::F32}),
      Scalar(H::kSign, 1, kArithmetic, XL_SCALAR(xl_sign_f32),
             XL_SCALAR(xl_sign_s32)),
      Scalar(H::kSin, 1, kExpensive, XL_SCALAR(xl_sin_f32)),
      Other(H::kSlice, 1, F::kDataMovement, L::kIndexRemap, 0, kKernelTypes),
      Scalar(H::kSqrt, 1, kExpensive, XL_SCALAR(xl_sqrt_f32)),
      Scalar(H::kSubtract, 2, kArithmetic, XL_SCALAR(xl_subtract_f32),
             XL_SCALAR(xl_subtract_s32)),
      Scalar(H::kTanh, 1, kExpensive, XL_SCALAR(xl_tanh_f32)),
      Other(H::kTranspose, 1, F::kDataMovement, L::kIndexRemap, 0,
            kKernelTypes),
      Other(H::kTuple, -1, F::kNotFusible, L::kResultTuple, 0, kAnyType),
      Scalar(H::kXor, 2, kArithmetic, none, XL_SCALAR(xl_xor_s32),
             XL_SCALAR(xl_xor_pred)),
  };
  return ops;
}

#undef XL_SCALAR

const std::vector<ElementalOp>& Table() {
  static const auto* const kTable = new std::vector<ElementalOp>(MakeTable());
  return *kTable;
}

std::string TypeName(PrimitiveType type) {
  return std::string(primitive_util::LowercasePrimitiveTypeName(type));
}

// The element types `op`'s row constrains: see ElementalOp::types.
std::vector<PrimitiveType> ConstrainedTypes(const ElementalOp& op,
                                            const HloInstruction& instr) {
  switch (op.lowering) {
    case OpLowering::kBuffer:
    case OpLowering::kResultTuple:
      return {};
    case OpLowering::kScalarFunction:
    case OpLowering::kCompare:
      return {instr.operand(0)->shape().element_type()};
    case OpLowering::kConvert:
      return {instr.operand(0)->shape().element_type(),
              instr.shape().element_type()};
    default:
      return {instr.shape().element_type()};
  }
}

std::string ReducerNames() {
  std::vector<std::string> names;
  for (const ElementalOp& op : Table()) {
    if (op.reducer) names.emplace_back(HloOpcodeString(op.opcode));
  }
  return absl::StrJoin(names, ", ");
}

// Kernels read and write only kernel types.
absl::Status CheckKernelOperands(const HloInstruction& instr) {
  for (const HloInstruction* operand : instr.operands()) {
    const Shape& shape = operand->shape();
    if (!shape.IsArray()) {
      return UnsupportedOpError(
          instr, shape.ToString(),
          absl::StrCat("operand ", operand->name(), " is a tuple"));
    }
    if (!kKernelTypes.contains(shape.element_type())) {
      return UnsupportedOpError(
          instr, TypeName(shape.element_type()),
          absl::StrCat("operand ", operand->name(), " is ", shape.ToString(),
                       "; kernels compute with ", kKernelTypes.ToString()));
    }
  }
  return absl::OkStatus();
}

}  // namespace

std::string TypeSet::ToString() const {
  std::vector<std::string> names;
  for (PrimitiveType type : primitive_util::AllPrimitiveTypes()) {
    if (contains(type)) names.push_back(TypeName(type));
  }
  return absl::StrJoin(names, ", ");
}

const ScalarFunction* ElementalOp::FunctionFor(PrimitiveType type) const {
  const ScalarFunction* function = nullptr;
  if (kFloatKernelTypes.contains(type)) {
    function = &on_float;
  } else if (type == PrimitiveType::S32) {
    function = &on_s32;
  } else if (type == PrimitiveType::PRED) {
    function = &on_pred;
  }
  return function != nullptr && function->exists() ? function : nullptr;
}

absl::Span<const ElementalOp> ElementalOps() { return Table(); }

const ElementalOp* FindElementalOp(HloOpcode opcode) {
  // Fusion asks for every instruction, often: index the rows by opcode.
  static const auto* const kByOpcode = [] {
    auto* by_opcode =
        new absl::flat_hash_map<HloOpcode, const ElementalOp*>();
    for (const ElementalOp& op : Table()) by_opcode->emplace(op.opcode, &op);
    return by_opcode;
  }();
  auto it = kByOpcode->find(opcode);
  return it == kByOpcode->end() ? nullptr : it->second;
}

absl::Status UnsupportedOpError(const HloInstruction& instr,
                                absl::string_view type,
                                absl::string_view detail) {
  const std::string line =
      instr.source_line() > 0 ? absl::StrCat(" (line ", instr.source_line(), ")")
                              : "";
  return absl::UnimplementedError(absl::StrCat(
      "instruction ", instr.name(), line, ": ",
      HloOpcodeString(instr.opcode()), " of ", type,
      " is not supported by the xla_lite compiler (", detail, ")"));
}

absl::StatusOr<ScatterCombiner> ScatterCombinerOf(
    const HloInstruction& scatter) {
  const HloComputation* computation = scatter.to_apply();
  const PrimitiveType type = scatter.shape().element_type();
  if (computation != nullptr && computation->num_parameters() == 2) {
    const HloInstruction* root = computation->root_instruction();
    if (root->opcode() == HloOpcode::kParameter &&
        root->parameter_number() == 1) {
      return ScatterCombiner{HloOpcode::kParameter, nullptr};
    }
    std::optional<HloOpcode> opcode = MatchReducer(computation);
    const ElementalOp* op =
        opcode.has_value() ? FindElementalOp(*opcode) : nullptr;
    if (op != nullptr && op->reducer && op->FunctionFor(type) != nullptr) {
      return ScatterCombiner{*opcode, op->FunctionFor(type)};
    }
  }
  return UnsupportedOpError(
      scatter, TypeName(type),
      absl::StrCat("only scatters whose to_apply is one ", ReducerNames(),
                   " of its two parameters, for the element type, or returns "
                   "its second parameter (assignment) are supported"));
}

absl::StatusOr<const ElementalOp*> SupportedElementalOp(
    const HloInstruction& instr) {
  const Shape& shape = instr.shape();
  const std::string result_type =
      shape.IsArray() ? TypeName(shape.element_type()) : shape.ToString();
  const ElementalOp* op = FindElementalOp(instr.opcode());
  if (op == nullptr) {
    return UnsupportedOpError(instr, result_type,
                              "no kernel or library call implements it");
  }
  if (op->arity >= 0 && instr.operand_count() != op->arity) {
    return UnsupportedOpError(
        instr, result_type,
        absl::StrCat(instr.operand_count(), " operands; it takes ", op->arity,
                     op->lowering == OpLowering::kReduce
                         ? " (one array and its init value)"
                         : ""));
  }
  if (op->lowering == OpLowering::kResultTuple) return op;
  if (!shape.IsArray()) {
    return UnsupportedOpError(instr, result_type,
                              "tuple-shaped values are not supported");
  }
  for (PrimitiveType type : ConstrainedTypes(*op, instr)) {
    if (!op->types.contains(type)) {
      return UnsupportedOpError(instr, TypeName(type),
                                absl::StrCat(HloOpcodeString(op->opcode),
                                             " takes ", op->types.ToString()));
    }
  }
  if (op->fusion != FusionKind::kNotFusible) {
    RETURN_IF_ERROR(CheckKernelOperands(instr));
  }
  if (op->lowering == OpLowering::kGather ||
      op->lowering == OpLowering::kScatter) {
    const Shape& indices = instr.operand(1)->shape();
    if (indices.element_type() != PrimitiveType::S32) {
      return UnsupportedOpError(
          instr, TypeName(indices.element_type()),
          absl::StrCat("start indices ", instr.operand(1)->name(), " are ",
                       indices.ToString(), "; kernels take s32 indices"));
    }
  }
  if (op->lowering == OpLowering::kScatter) {
    RETURN_IF_ERROR(ScatterCombinerOf(instr).status());
  }
  if (op->lowering == OpLowering::kReduce &&
      ReducerFunction(instr) == nullptr) {
    return UnsupportedOpError(
        instr, result_type,
        absl::StrCat("only reduces whose computation is one ", ReducerNames(),
                     " of its two parameters, for the element type, are "
                     "supported"));
  }
  return op;
}

const ScalarFunction* ReducerFunction(const HloInstruction& reduce) {
  if (reduce.opcode() != HloOpcode::kReduce || !reduce.shape().IsArray()) {
    return nullptr;
  }
  std::optional<HloOpcode> opcode = MatchReducer(reduce.to_apply());
  if (!opcode.has_value()) return nullptr;
  const ElementalOp* op = FindElementalOp(*opcode);
  if (op == nullptr || !op->reducer) return nullptr;
  return op->FunctionFor(reduce.shape().element_type());
}

}  // namespace xla_lite::gpu
