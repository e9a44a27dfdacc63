#ifndef XLA_LITE_HLO_HLO_OPCODE_H_
#define XLA_LITE_HLO_HLO_OPCODE_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace xla_lite {

// Every opcode the parser knows, with its HLO text spelling. The compiler
// supports a subset and names the rest in its error.
#define XLA_LITE_HLO_OPCODE_LIST(V)        \
  V(kAbs, "abs")                           \
  V(kAdd, "add")                           \
  V(kAllGather, "all-gather")              \
  V(kAllReduce, "all-reduce")              \
  V(kAnd, "and")                           \
  V(kBitcast, "bitcast")                   \
  V(kBroadcast, "broadcast")               \
  V(kCall, "call")                         \
  V(kCeil, "ceil")                         \
  V(kClamp, "clamp")                       \
  V(kCollectivePermute, "collective-permute") \
  V(kCompare, "compare")                   \
  V(kConcatenate, "concatenate")           \
  V(kConditional, "conditional")           \
  V(kConstant, "constant")                 \
  V(kConvert, "convert")                   \
  V(kConvolution, "convolution")           \
  V(kCopy, "copy")                         \
  V(kCos, "cosine")                        \
  V(kCustomCall, "custom-call")            \
  V(kDivide, "divide")                     \
  V(kDot, "dot")                           \
  V(kDynamicSlice, "dynamic-slice")        \
  V(kDynamicUpdateSlice, "dynamic-update-slice") \
  V(kExp, "exponential")                   \
  V(kExpm1, "exponential-minus-one")       \
  V(kFloor, "floor")                       \
  V(kFusion, "fusion")                     \
  V(kGather, "gather")                     \
  V(kGetTupleElement, "get-tuple-element") \
  V(kIota, "iota")                         \
  V(kIsFinite, "is-finite")                \
  V(kLog, "log")                           \
  V(kLog1p, "log-plus-one")                \
  V(kLogistic, "logistic")                 \
  V(kMaximum, "maximum")                   \
  V(kMinimum, "minimum")                   \
  V(kMultiply, "multiply")                 \
  V(kNegate, "negate")                     \
  V(kNot, "not")                           \
  V(kOr, "or")                             \
  V(kPad, "pad")                           \
  V(kParameter, "parameter")               \
  V(kPartitionId, "partition-id")          \
  V(kPower, "power")                       \
  V(kReduce, "reduce")                     \
  V(kReduceWindow, "reduce-window")        \
  V(kReduceScatter, "reduce-scatter")      \
  V(kRemainder, "remainder")               \
  V(kReshape, "reshape")                   \
  V(kReplicaId, "replica-id")              \
  V(kReverse, "reverse")                   \
  V(kScatter, "scatter")                   \
  V(kRsqrt, "rsqrt")                       \
  V(kSelect, "select")                     \
  V(kSelectAndScatter, "select-and-scatter") \
  V(kSign, "sign")                         \
  V(kSin, "sine")                          \
  V(kSlice, "slice")                       \
  V(kSqrt, "sqrt")                         \
  V(kSubtract, "subtract")                 \
  V(kTanh, "tanh")                         \
  V(kTranspose, "transpose")               \
  V(kTuple, "tuple")                       \
  V(kWhile, "while")                       \
  V(kXor, "xor")

enum class HloOpcode {
#define XLA_LITE_DECLARE_OPCODE(enum_name, text) enum_name,
  XLA_LITE_HLO_OPCODE_LIST(XLA_LITE_DECLARE_OPCODE)
#undef XLA_LITE_DECLARE_OPCODE
};

absl::string_view HloOpcodeString(HloOpcode opcode);
// NOT_FOUND naming the text when no opcode has that spelling.
absl::StatusOr<HloOpcode> StringToHloOpcode(absl::string_view text);

// Elementwise: the output element at an index depends only on the operand
// elements at the same index (unary, binary, compare, select, clamp,
// convert).
bool IsElementwise(HloOpcode opcode);
// One operand, output element type = operand element type except
// is-finite (pred): abs, ceil, copy, cosine, exponential,
// exponential-minus-one, floor, is-finite, log, log-plus-one, logistic,
// negate, not, rsqrt, sign, sine, sqrt, tanh. Not convert.
bool IsElementwiseUnary(HloOpcode opcode);
// Two operands of one type, output of that type: add, and, divide,
// maximum, minimum, multiply, or, power, remainder, subtract, xor. Not
// compare (pred output).
bool IsElementwiseBinary(HloOpcode opcode);
// all-reduce, all-gather, reduce-scatter, collective-permute: ops whose
// result depends on the values of other devices.
bool IsCollective(HloOpcode opcode);

}  // namespace xla_lite

#endif  // XLA_LITE_HLO_HLO_OPCODE_H_
