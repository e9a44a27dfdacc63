#ifndef XLA_LITE_SERVICE_ELEMENTAL_OPS_H_
#define XLA_LITE_SERVICE_ELEMENTAL_OPS_H_

// Which ops and element types the compiler takes, and how: one row per
// opcode it supports, consulted by the fusion plan (whether an op fuses and
// what recomputing it costs), the elemental lowering (which program ops it
// becomes) and both kernel back ends (the scalar function computing it:
// called by name in emitted CUDA C, compiled into the host interpreter).
// An opcode without a row, or an element type its row does not take, is
// the same UNIMPLEMENTED error wherever it is met (UnsupportedOpError).
//
// Adding an op is adding its row; an op that is a scalar function of its
// operands needs nothing else but the function, in
// elemental_scalar_ops.inc. Any other op needs its case in
// elemental_lowering too.

#include <cstdint>
#include <initializer_list>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "xla_lite/hlo/hlo_instruction.h"
#include "xla_lite/hlo/hlo_opcode.h"
#include "xla_lite/primitive_util.h"

namespace xla_lite::gpu {

// A set of element types.
class TypeSet {
 public:
  constexpr TypeSet() = default;
  constexpr TypeSet(std::initializer_list<PrimitiveType> types) {
    for (PrimitiveType type : types) bits_ |= Bit(type);
  }

  constexpr bool contains(PrimitiveType type) const {
    return (bits_ & Bit(type)) != 0;
  }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr TypeSet operator|(TypeSet other) const {
    TypeSet set;
    set.bits_ = bits_ | other.bits_;
    return set;
  }
  constexpr bool operator==(TypeSet other) const {
    return bits_ == other.bits_;
  }
  // "f32, bf16, f16", in PrimitiveType order.
  std::string ToString() const;

 private:
  static constexpr uint32_t Bit(PrimitiveType type) {
    return uint32_t{1} << static_cast<int>(type);
  }
  uint32_t bits_ = 0;
};

// The element types kernels compute with: f32, bf16 and f16 in float
// (16-bit results rounded after every op), s32 in int, pred in bool.
inline constexpr TypeSet kFloatKernelTypes = {
    PrimitiveType::F32, PrimitiveType::BF16, PrimitiveType::F16};
inline constexpr TypeSet kKernelTypes =
    kFloatKernelTypes | TypeSet{PrimitiveType::S32, PrimitiveType::PRED};

// Where an op's values are computed.
enum class FusionKind {
  kElementwise,   // In the kernel that uses it, element by element.
  kDataMovement,  // In the kernel that uses it, as index arithmetic.
  kReduction,     // A reduce kernel of its own, its producers fused in.
  // A scatter kernel of its own (after one that fills its output with the
  // operand), the updates' producers fused in.
  kScatter,
  kNotFusible,    // A buffer of its own, or no value at all.
};

// What the elemental lowering makes of an op.
enum class OpLowering {
  kBuffer,          // Loaded from its buffer; a scalar constant is inlined.
  kGemm,            // A gemm computes it; kernels load the result.
  // convolution, reduce-window, select-and-scatter: a kernel of its own
  // (service/convolution) computes it; kernels load the result.
  kWindowKernel,
  kResultTuple,     // Names the entry's results; only as the entry root.
  kIndexRemap,      // broadcast, reshape, slice, reverse, transpose.
  kIota,            // Its index along a dimension, as a value.
  kScalarFunction,  // A ScalarFunction of the operands (kUnary, kBinary).
  kCompare,
  kSelect,
  kClamp,  // maximum, then minimum: their rows' functions.
  kConvert,
  kCopy,  // The operand itself.
  kReduce,
  kCollective,  // A collective thunk computes it; kernels load the result.
  kGather,       // Loads at an index computed from loaded start indices.
  kConcatenate,  // Selects between its operands by coordinate.
  kPad,          // Selects the operand or the padding value by coordinate.
  kScatter,
};

// Lanes of values for a scalar function on the host: float-class values in
// f, s32 and pred (0 or 1) in i; operand k's lanes are f[k] or i[k].
struct ScalarLanes {
  const float* f[2] = {nullptr, nullptr};
  const int32_t* i[2] = {nullptr, nullptr};
  float* out_f = nullptr;
  int32_t* out_i = nullptr;
  int64_t count = 0;
};

// One scalar function of elemental_scalar_ops.inc, as both back ends use
// it: its name, which emitted CUDA C calls, and the host's compiled copy
// applied to `count` lanes.
struct ScalarFunction {
  const char* name = nullptr;
  void (*host)(const ScalarLanes& lanes) = nullptr;

  bool exists() const { return name != nullptr; }
};

// One opcode the compiler takes.
struct ElementalOp {
  HloOpcode opcode;
  int arity;  // Operands; -1 for any number.
  FusionKind fusion;
  OpLowering lowering;
  // What recomputing it in another kernel costs (FusionPlan): 0 for index
  // arithmetic, 1 for arithmetic, 4 for division and transcendentals.
  int cost;
  // The element types taken: of the operands for scalar functions,
  // compare and convert (of the result too), else of the result. Scalar
  // functions take the classes they have a function for.
  TypeSet types;
  // kScalarFunction: the function per operand class.
  ScalarFunction on_float, on_s32, on_pred;
  // A reduce's computation may be this op alone.
  bool reducer = false;

  // The function for operands of `type`, or null.
  const ScalarFunction* FunctionFor(PrimitiveType type) const;
};

// Every row, in opcode order.
absl::Span<const ElementalOp> ElementalOps();
// The row of `opcode`, or null when the compiler does not take it.
const ElementalOp* FindElementalOp(HloOpcode opcode);

// The row of `instr` when the compiler takes it with its arity, element
// types and (reduces) computation; UnsupportedOpError otherwise. Whether
// it appears where it may (a tuple only as the entry root) is the
// caller's to check.
absl::StatusOr<const ElementalOp*> SupportedElementalOp(
    const HloInstruction& instr);

// The function a reduce kernel combines elements of `reduce` with: its
// computation's one op, for its element type; null if there is none.
const ScalarFunction* ReducerFunction(const HloInstruction& reduce);

// How a scatter combines an update with the value it lands on: its
// to_apply computation's one reducer op on its two parameters (`function`
// for the element type), or, when the computation returns its second
// parameter, assignment (`function` null).
struct ScatterCombiner {
  HloOpcode opcode = HloOpcode::kAdd;
  const ScalarFunction* function = nullptr;
};
// Refused with UnsupportedOpError when the computation is neither.
absl::StatusOr<ScatterCombiner> ScatterCombinerOf(const HloInstruction& scatter);

// UNIMPLEMENTED: "instruction <name> (line <n>): <opcode> of <type> is not
// supported by the xla_lite compiler (<detail>)". `type` names the element
// type (or shape) at fault; the line is left out for instructions made by
// code.
absl::Status UnsupportedOpError(const HloInstruction& instr,
                                absl::string_view type,
                                absl::string_view detail);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_SERVICE_ELEMENTAL_OPS_H_
