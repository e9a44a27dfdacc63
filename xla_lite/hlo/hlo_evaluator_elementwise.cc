#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "xla_lite/hlo/hlo_evaluator_internal.h"

namespace xla_lite::evaluator_internal {
namespace {

absl::Status Unsupported(HloOpcode opcode, PrimitiveType type) {
  return absl::UnimplementedError(
      absl::StrCat("evaluator: ", HloOpcodeString(opcode), " on ",
                   primitive_util::LowercasePrimitiveTypeName(type)));
}

absl::StatusOr<double> UnaryFloat(HloOpcode opcode, double x) {
  switch (opcode) {
    case HloOpcode::kAbs: return std::fabs(x);
    case HloOpcode::kCeil: return std::ceil(x);
    case HloOpcode::kCopy: return x;
    case HloOpcode::kCos: return std::cos(x);
    case HloOpcode::kExp: return std::exp(x);
    case HloOpcode::kExpm1: return std::expm1(x);
    case HloOpcode::kFloor: return std::floor(x);
    case HloOpcode::kIsFinite: return std::isfinite(x) ? 1.0 : 0.0;
    case HloOpcode::kLog: return std::log(x);
    case HloOpcode::kLog1p: return std::log1p(x);
    case HloOpcode::kLogistic: return 1.0 / (1.0 + std::exp(-x));
    case HloOpcode::kNegate: return -x;
    case HloOpcode::kRsqrt: return 1.0 / std::sqrt(x);
    case HloOpcode::kSign:
      // NaN and signed zeros come back as they are.
      if (std::isnan(x) || x == 0) return x;
      return x > 0 ? 1.0 : -1.0;
    case HloOpcode::kSin: return std::sin(x);
    case HloOpcode::kSqrt: return std::sqrt(x);
    case HloOpcode::kTanh: return std::tanh(x);
    default:
      return absl::UnimplementedError("not a floating-point unary op");
  }
}

absl::StatusOr<int64_t> UnaryInt(HloOpcode opcode, PrimitiveType type,
                                 int64_t x) {
  // u64 travels as its bits in an int64; the smaller unsigned types are
  // never negative there.
  if (type == PrimitiveType::U64 && opcode == HloOpcode::kAbs) return x;
  if (type == PrimitiveType::U64 && opcode == HloOpcode::kSign) return x != 0;
  switch (opcode) {
    case HloOpcode::kAbs:
      return x < 0 ? static_cast<int64_t>(0 - static_cast<uint64_t>(x)) : x;
    case HloOpcode::kCopy: return x;
    case HloOpcode::kNegate:
      return static_cast<int64_t>(0 - static_cast<uint64_t>(x));
    case HloOpcode::kNot:
      return type == PrimitiveType::PRED ? (x == 0 ? 1 : 0) : ~x;
    case HloOpcode::kSign: return x > 0 ? 1 : (x < 0 ? -1 : 0);
    default:
      return Unsupported(opcode, type);
  }
}

absl::StatusOr<double> BinaryFloat(HloOpcode opcode, double a, double b) {
  switch (opcode) {
    case HloOpcode::kAdd: return a + b;
    case HloOpcode::kSubtract: return a - b;
    case HloOpcode::kMultiply: return a * b;
    case HloOpcode::kDivide: return a / b;
    case HloOpcode::kMaximum:
      if (std::isnan(a) || std::isnan(b)) return std::nan("");
      return a > b ? a : b;
    case HloOpcode::kMinimum:
      if (std::isnan(a) || std::isnan(b)) return std::nan("");
      return a < b ? a : b;
    case HloOpcode::kPower: return std::pow(a, b);
    case HloOpcode::kRemainder: return std::fmod(a, b);
    default:
      return absl::UnimplementedError("not a floating-point binary op");
  }
}

int64_t IntPower(int64_t base, int64_t exponent) {
  if (exponent < 0) {
    if (base == 1) return 1;
    if (base == -1) return (exponent % 2 == 0) ? 1 : -1;
    return 0;
  }
  uint64_t result = 1, factor = static_cast<uint64_t>(base);
  for (uint64_t e = static_cast<uint64_t>(exponent); e != 0; e >>= 1) {
    if (e & 1) result *= factor;
    factor *= factor;
  }
  return static_cast<int64_t>(result);
}

// u64 operands, as their bits in int64s, where the sign matters.
std::optional<int64_t> BinaryU64(HloOpcode opcode, uint64_t a, uint64_t b) {
  switch (opcode) {
    case HloOpcode::kDivide:
      return b == 0 ? -1 : static_cast<int64_t>(a / b);
    case HloOpcode::kRemainder:
      return static_cast<int64_t>(b == 0 ? a : a % b);
    case HloOpcode::kMaximum:
      return static_cast<int64_t>(a > b ? a : b);
    case HloOpcode::kMinimum:
      return static_cast<int64_t>(a < b ? a : b);
    case HloOpcode::kPower: {
      uint64_t result = 1;
      for (; b != 0; b >>= 1, a *= a) {
        if (b & 1) result *= a;
      }
      return static_cast<int64_t>(result);
    }
    default:
      return std::nullopt;
  }
}

// Wrapping arithmetic (through uint64) so overflow is defined; the store
// into the element type then wraps as XLA's integer ops do.
absl::StatusOr<int64_t> BinaryInt(HloOpcode opcode, PrimitiveType type,
                                  int64_t a, int64_t b) {
  const uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  const bool pred = type == PrimitiveType::PRED;
  if (type == PrimitiveType::U64) {
    std::optional<int64_t> value = BinaryU64(opcode, ua, ub);
    if (value.has_value()) return *value;
  }
  switch (opcode) {
    case HloOpcode::kAdd: return static_cast<int64_t>(ua + ub);
    case HloOpcode::kSubtract: return static_cast<int64_t>(ua - ub);
    case HloOpcode::kMultiply: return static_cast<int64_t>(ua * ub);
    case HloOpcode::kDivide:
      if (b == 0) return -1;
      if (a == std::numeric_limits<int64_t>::min() && b == -1) return a;
      return a / b;
    case HloOpcode::kRemainder:
      if (b == 0) return a;
      if (b == -1) return 0;
      return a % b;
    case HloOpcode::kMaximum: return a > b ? a : b;
    case HloOpcode::kMinimum: return a < b ? a : b;
    case HloOpcode::kPower: return IntPower(a, b);
    case HloOpcode::kAnd: return pred ? (a && b) : (a & b);
    case HloOpcode::kOr: return pred ? (a || b) : (a | b);
    case HloOpcode::kXor: return pred ? ((a != 0) != (b != 0)) : (a ^ b);
    default:
      return Unsupported(opcode, type);
  }
}

template <typename T>
bool Compare(ComparisonDirection direction, T a, T b) {
  switch (direction) {
    case ComparisonDirection::kEq: return a == b;
    case ComparisonDirection::kNe: return a != b;
    case ComparisonDirection::kLt: return a < b;
    case ComparisonDirection::kLe: return a <= b;
    case ComparisonDirection::kGt: return a > b;
    case ComparisonDirection::kGe: return a >= b;
  }
  return false;
}

// Index into an operand that may be a scalar standing for every element
// (select's predicate, clamp's bounds).
int64_t At(const Literal& operand, int64_t i) {
  return operand.shape().rank() == 0 ? 0 : i;
}

absl::Status EvaluateUnary(const HloInstruction& instr, const Literal& x,
                           Literal* out) {
  const PrimitiveType type = x.shape().element_type();
  for (int64_t i = 0; i < out->element_count(); ++i) {
    if (primitive_util::IsFloatingPointType(type)) {
      if (instr.opcode() == HloOpcode::kNot) {
        return Unsupported(instr.opcode(), type);
      }
      ASSIGN_OR_RETURN(double value, UnaryFloat(instr.opcode(),
                                                x.GetAsDouble(i)));
      out->SetFromDouble(i, value);
    } else if (instr.opcode() == HloOpcode::kIsFinite) {
      out->SetFromInt64(i, 1);
    } else {
      ASSIGN_OR_RETURN(int64_t value,
                       UnaryInt(instr.opcode(), type, x.GetAsInt64(i)));
      out->SetFromInt64(i, value);
    }
  }
  return absl::OkStatus();
}

void EvaluateConvert(const Literal& x, Literal* out) {
  const bool from_float =
      primitive_util::IsFloatingPointType(x.shape().element_type());
  const bool to_float =
      primitive_util::IsFloatingPointType(out->shape().element_type());
  for (int64_t i = 0; i < out->element_count(); ++i) {
    if (from_float || to_float) {
      // Float to integer truncates toward zero (saturating); see literal.h.
      out->SetFromDouble(i, from_float ? x.GetAsDouble(i)
                                       : static_cast<double>(x.GetAsInt64(i)));
    } else {
      out->SetFromInt64(i, x.GetAsInt64(i));
    }
  }
}

// TOTALORDER's key: -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN, the
// order of the bits as a sign-magnitude integer.
int64_t TotalOrderKey(double x) {
  int64_t bits;
  std::memcpy(&bits, &x, sizeof(bits));
  return bits < 0 ? bits ^ std::numeric_limits<int64_t>::max() : bits;
}

void EvaluateCompare(const HloInstruction& instr, const Literal& a,
                     const Literal& b, Literal* out) {
  const ComparisonDirection direction = instr.comparison_direction();
  const PrimitiveType type = a.shape().element_type();
  const bool total_order =
      instr.comparison_type() == ComparisonType::kTotalOrder;
  for (int64_t i = 0; i < out->element_count(); ++i) {
    bool result;
    if (total_order) {
      result = Compare(direction, TotalOrderKey(a.GetAsDouble(i)),
                       TotalOrderKey(b.GetAsDouble(i)));
    } else if (primitive_util::IsFloatingPointType(type)) {
      result = Compare(direction, a.GetAsDouble(i), b.GetAsDouble(i));
    } else if (type == PrimitiveType::U64) {
      result = Compare(direction, static_cast<uint64_t>(a.GetAsInt64(i)),
                       static_cast<uint64_t>(b.GetAsInt64(i)));
    } else {
      result = Compare(direction, a.GetAsInt64(i), b.GetAsInt64(i));
    }
    out->SetFromInt64(i, result ? 1 : 0);
  }
}

void EvaluateSelect(const Literal& pred, const Literal& on_true,
                    const Literal& on_false, Literal* out) {
  for (int64_t i = 0; i < out->element_count(); ++i) {
    const Literal& chosen = pred.GetAsInt64(At(pred, i)) != 0 ? on_true
                                                              : on_false;
    if (primitive_util::IsFloatingPointType(out->shape().element_type())) {
      out->SetFromDouble(i, chosen.GetAsDouble(i));
    } else {
      out->SetFromInt64(i, chosen.GetAsInt64(i));
    }
  }
}

void EvaluateClamp(const Literal& low, const Literal& x, const Literal& high,
                   Literal* out) {
  const bool floating =
      primitive_util::IsFloatingPointType(out->shape().element_type());
  for (int64_t i = 0; i < out->element_count(); ++i) {
    if (floating) {
      // max then min, each propagating NaN as XLA's clamp does.
      double lo = low.GetAsDouble(At(low, i)), hi = high.GetAsDouble(At(high, i));
      double value = *BinaryFloat(HloOpcode::kMaximum, x.GetAsDouble(i), lo);
      out->SetFromDouble(i, *BinaryFloat(HloOpcode::kMinimum, value, hi));
    } else {
      // max then min, as the integer ops (u64 included) define them.
      const PrimitiveType type = out->shape().element_type();
      int64_t value = *BinaryInt(HloOpcode::kMaximum, type, x.GetAsInt64(i),
                                 low.GetAsInt64(At(low, i)));
      out->SetFromInt64(i, *BinaryInt(HloOpcode::kMinimum, type, value,
                                      high.GetAsInt64(At(high, i))));
    }
  }
}

}  // namespace

absl::Status ApplyBinaryElement(HloOpcode opcode, const Literal& a,
                                int64_t a_index, const Literal& b,
                                int64_t b_index, Literal* out,
                                int64_t out_index) {
  const PrimitiveType type = out->shape().element_type();
  if (primitive_util::IsFloatingPointType(type)) {
    ASSIGN_OR_RETURN(double value, BinaryFloat(opcode, a.GetAsDouble(a_index),
                                               b.GetAsDouble(b_index)));
    out->SetFromDouble(out_index, value);
  } else {
    ASSIGN_OR_RETURN(int64_t value,
                     BinaryInt(opcode, type, a.GetAsInt64(a_index),
                               b.GetAsInt64(b_index)));
    out->SetFromInt64(out_index, value);
  }
  return absl::OkStatus();
}

absl::StatusOr<Literal> EvaluateElementwise(
    const HloInstruction& instr, absl::Span<const Literal* const> operands) {
  Literal out(instr.shape());
  const HloOpcode opcode = instr.opcode();
  if (IsElementwiseUnary(opcode)) {
    RETURN_IF_ERROR(EvaluateUnary(instr, *operands[0], &out));
  } else if (IsElementwiseBinary(opcode)) {
    for (int64_t i = 0; i < out.element_count(); ++i) {
      RETURN_IF_ERROR(ApplyBinaryElement(opcode, *operands[0], i, *operands[1],
                                         i, &out, i));
    }
  } else if (opcode == HloOpcode::kConvert) {
    EvaluateConvert(*operands[0], &out);
  } else if (opcode == HloOpcode::kCompare) {
    EvaluateCompare(instr, *operands[0], *operands[1], &out);
  } else if (opcode == HloOpcode::kSelect) {
    EvaluateSelect(*operands[0], *operands[1], *operands[2], &out);
  } else if (opcode == HloOpcode::kClamp) {
    EvaluateClamp(*operands[0], *operands[1], *operands[2], &out);
  } else {
    return absl::UnimplementedError(absl::StrCat(
        "evaluator: ", HloOpcodeString(opcode), " is not elementwise"));
  }
  return out;
}

}  // namespace xla_lite::evaluator_internal
