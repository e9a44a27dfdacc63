#include "xla_lite/service/hlo_simplifier.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "base/status_macros.h"
#include "glog/logging.h"
#include "xla_lite/service/hlo_rewrite_util.h"

namespace xla_lite {
namespace {

bool SameArray(const Shape& a, const Shape& b) {
  return a.IsArray() && b.IsArray() && a.Compatible(b);
}

// reduce(x, init) over dimensions that all have extent 1 combines each
// element with init exactly once: reducer(broadcast(init), reshape(x)).
HloInstruction* SimplifyTrivialReduce(HloInstruction* reduce,
                                      NameUniquer& names) {
  if (reduce->operand_count() != 2 || !reduce->shape().IsArray()) {
    return nullptr;
  }
  std::optional<HloOpcode> reducer = MatchReducer(reduce->to_apply());
  if (!reducer.has_value()) return nullptr;
  HloInstruction* input = reduce->mutable_operand(0);
  for (int64_t d : reduce->dimensions()) {
    if (input->shape().dimensions(d) != 1) return nullptr;
  }
  HloComputation* computation = reduce->parent();
  const Shape& shape = reduce->shape();
  HloInstruction* reshaped = AddReshape(computation, input, shape.dimensions(),
                                        names.Get(input->name() + ".reshape"));
  HloInstruction* init = AddBroadcast(computation, reduce->mutable_operand(1),
                                      shape, {}, names.Get("init.broadcast"));
  return AddInstruction(computation, *reducer,
                        Shape::Array(shape.element_type(), shape.dimensions()),
                        {init, reshaped}, names.Get(reduce->name()));
}

// convolution(x, reverse(k)) reversing only kernel spatial dimensions is
// convolution(x, k) with those window dimensions' reversal flipped: the
// gradient of a convolution's input (JAX reverses the kernel) then reads
// the kernel in place instead of a reversed copy made every step. Edits
// `conv` in place; null when the rule does not apply.
HloInstruction* FoldKernelReverse(HloInstruction* conv) {
  HloInstruction* reverse = conv->mutable_operand(1);
  if (reverse->opcode() != HloOpcode::kReverse || conv->operand(0) == reverse) {
    return nullptr;
  }
  const std::vector<int64_t>& spatial =
      conv->convolution_dimension_numbers().kernel_spatial_dimensions;
  Window window = conv->window();
  for (int64_t d : reverse->dimensions()) {
    auto it = std::find(spatial.begin(), spatial.end(), d);
    if (it == spatial.end()) return nullptr;
    WindowDimension& w = window[it - spatial.begin()];
    w.window_reversal = !w.window_reversal;
  }
  conv->set_window(std::move(window));
  conv->ReplaceOperandWith(reverse, reverse->mutable_operand(0));
  return conv;
}

// convert(dot) to bf16, where the dot of bf16 operands is f32 and read by
// nothing else, is the dot with a bf16 result: both accumulate in f32 and
// round once. The gemm then writes half the bytes, and its readers read
// half. Edits the dot in place; null when the rule does not apply.
HloInstruction* FoldConvertIntoDot(HloInstruction* convert) {
  HloInstruction* dot = convert->mutable_operand(0);
  if (dot->opcode() != HloOpcode::kDot || dot->users().size() != 1 ||
      !dot->shape().IsArray() ||
      dot->shape().element_type() != PrimitiveType::F32 ||
      convert->shape().element_type() != PrimitiveType::BF16) {
    return nullptr;
  }
  for (const HloInstruction* operand : dot->operands()) {
    if (operand->shape().element_type() != PrimitiveType::BF16) return nullptr;
  }
  dot->mutable_shape()->set_element_type(PrimitiveType::BF16);
  return dot;
}

// Whether `instr` converts a 16-bit float to f32. Every such value is exact
// in f32, and so is the product of two of them.
bool IsExactWidening(const HloInstruction& instr) {
  if (instr.opcode() != HloOpcode::kConvert || !instr.shape().IsArray() ||
      instr.shape().element_type() != PrimitiveType::F32) {
    return false;
  }
  PrimitiveType from = instr.operand(0)->shape().element_type();
  return from == PrimitiveType::BF16 || from == PrimitiveType::F16;
}

// reshape or transpose(convert(x)) widening x to f32 is convert(reshape or
// transpose(x)): the data movement then moves half the bytes, and a dot
// reading it sees the convert (FoldOperandConvertsIntoDot).
HloInstruction* SinkWideningConvert(HloInstruction* instr, NameUniquer& names) {
  HloInstruction* convert = instr->mutable_operand(0);
  if (!IsExactWidening(*convert)) return nullptr;
  HloComputation* computation = instr->parent();
  HloInstruction* narrow =
      CloneInstruction(computation, *instr, {convert->mutable_operand(0)},
                       names.Get(instr->name() + ".narrow"));
  narrow->mutable_shape()->set_element_type(
      convert->operand(0)->shape().element_type());
  return AddInstruction(computation, HloOpcode::kConvert, instr->shape(),
                        {narrow}, names.Get(instr->name()));
}

// dot(convert(a), convert(b)) with bf16 a and b widened to f32 is dot(a, b)
// with an f32 result: the products are exact either way and both sums run
// in f32, at any precision the dot asks for. The gemm then reads half the
// bytes and runs on the bf16 tensor-core path. JAX's gradients of
// mixed-precision matmuls take this form. (f16 would be as exact, but no
// gemm takes f16 operands.) Edits the dot in place; null when the rule
// does not apply.
HloInstruction* FoldOperandConvertsIntoDot(HloInstruction* dot) {
  const HloInstruction* lhs = dot->operand(0);
  const HloInstruction* rhs = dot->operand(1);
  if (!dot->shape().IsArray() ||
      dot->shape().element_type() != PrimitiveType::F32 ||
      !IsExactWidening(*lhs) || !IsExactWidening(*rhs) ||
      lhs->operand(0)->shape().element_type() != PrimitiveType::BF16 ||
      rhs->operand(0)->shape().element_type() != PrimitiveType::BF16) {
    return nullptr;
  }
  // Both operands may be one convert; each is replaced once.
  HloInstruction* converts[] = {dot->mutable_operand(0),
                                dot->mutable_operand(1)};
  dot->ReplaceOperandWith(converts[0], converts[0]->mutable_operand(0));
  if (converts[1] != converts[0]) {
    dot->ReplaceOperandWith(converts[1], converts[1]->mutable_operand(0));
  }
  return dot;
}

// transpose(dot(a, b)) that moves the rhs's free dimensions before the
// lhs's, batch dimensions staying first, is dot(b, a): the gemm writes the
// transposed result itself. JAX's weight gradients take this form (dy^T x
// computed as [out, in], transposed to the weight's [in, out]), and the
// optimizer fused after them read each gradient down its columns, a
// sector per element.
// Any other transpose whose minor dimension is the lhs's last free one
// becomes a transpose of dot(b, a) that keeps the minor dimension, where
// the original read it with a stride of the rhs's free extent:
// attention's weighted values, computed per head as [d, q] and transposed
// to [q, heads, d], were read down their columns (one element per
// 128-byte line); from dot(b, a), [q, d] per head, each row of d is one
// contiguous run.
// Only a dot read by nothing else is swapped (a dot also read
// untransposed would need both results); null when neither rule applies.
HloInstruction* FoldTransposeIntoDot(HloInstruction* transpose,
                                     NameUniquer& names) {
  HloInstruction* dot = transpose->mutable_operand(0);
  if (dot->opcode() != HloOpcode::kDot || dot->user_count() != 1 ||
      !dot->shape().IsArray()) {
    return nullptr;
  }
  const DotDimensionNumbers& d = dot->dot_dimension_numbers();
  const int64_t batch = d.lhs_batch_dimensions.size();
  const int64_t lhs_free = dot->operand(0)->shape().rank() - batch -
                           d.lhs_contracting_dimensions.size();
  const int64_t rhs_free = dot->operand(1)->shape().rank() - batch -
                           d.rhs_contracting_dimensions.size();
  if (lhs_free == 0 || rhs_free == 0) return nullptr;
  // Dimension i of dot(a, b), [batch..., lhs free..., rhs free...], is
  // dimension moved[i] of dot(b, a), [batch..., rhs free..., lhs free...].
  auto moved = [&](int64_t i) {
    if (i < batch) return i;
    if (i < batch + lhs_free) return i + rhs_free;
    return i - lhs_free;
  };
  std::vector<int64_t> remaining;
  for (int64_t i : transpose->dimensions()) remaining.push_back(moved(i));
  const int64_t minor = dot->shape().rank() - 1;
  const bool folds = IsIdentityPermutation(remaining);
  if (!folds && remaining.back() != minor) return nullptr;
  HloInstruction* result =
      CloneInstruction(transpose->parent(), *dot,
                       {dot->mutable_operand(1), dot->mutable_operand(0)},
                       names.Get(dot->name() + ".swapped"));
  result->set_dot_dimension_numbers(
      {d.rhs_contracting_dimensions, d.lhs_contracting_dimensions,
       d.rhs_batch_dimensions, d.lhs_batch_dimensions});
  std::vector<PrecisionConfig> precision = dot->operand_precision();
  std::reverse(precision.begin(), precision.end());
  result->set_operand_precision(std::move(precision));
  std::vector<int64_t> dimensions(dot->shape().rank());
  for (int64_t i = 0; i < dimensions.size(); ++i) {
    dimensions[moved(i)] = dot->shape().dimensions(i);
  }
  *result->mutable_shape() =
      Shape::Array(dot->shape().element_type(), std::move(dimensions));
  if (folds) return result;
  return AddTranspose(transpose->parent(), result, std::move(remaining),
                      names.Get(transpose->name()));
}

// A replacement for `instr`, or null when no rule applies. May edit `instr`
// in place (and then returns it).
HloInstruction* SimplifyOne(HloInstruction* instr, NameUniquer& names) {
  HloComputation* computation = instr->parent();
  switch (instr->opcode()) {
    case HloOpcode::kGetTupleElement: {
      HloInstruction* tuple = instr->mutable_operand(0);
      if (tuple->opcode() != HloOpcode::kTuple) return nullptr;
      return tuple->mutable_operand(instr->tuple_index());
    }
    case HloOpcode::kBitcast: {
      const Shape& from = instr->operand(0)->shape();
      if (!from.IsArray() || !instr->shape().IsArray() ||
          from.element_type() != instr->shape().element_type() ||
          from.ElementCount() != instr->shape().ElementCount()) {
        return nullptr;
      }
      return AddReshape(computation, instr->mutable_operand(0),
                        instr->shape().dimensions(), names.Get(instr->name()));
    }
    case HloOpcode::kReshape: {
      HloInstruction* operand = instr->mutable_operand(0);
      if (SameArray(operand->shape(), instr->shape())) return operand;
      if (operand->opcode() != HloOpcode::kReshape) {
        return SinkWideningConvert(instr, names);
      }
      instr->ReplaceOperandWith(operand, operand->mutable_operand(0));
      return instr;
    }
    case HloOpcode::kTranspose: {
      HloInstruction* operand = instr->mutable_operand(0);
      if (IsIdentityPermutation(instr->dimensions())) return operand;
      if (operand->opcode() == HloOpcode::kDot) {
        return FoldTransposeIntoDot(instr, names);
      }
      if (operand->opcode() != HloOpcode::kTranspose) {
        return SinkWideningConvert(instr, names);
      }
      // out[i] = mid[p[i]] = in[q[p[i]]].
      std::vector<int64_t> composed;
      for (int64_t d : instr->dimensions()) {
        composed.push_back(operand->dimensions(d));
      }
      instr->set_dimensions(composed);
      instr->ReplaceOperandWith(operand, operand->mutable_operand(0));
      return instr;
    }
    case HloOpcode::kConvert:
      return SameArray(instr->operand(0)->shape(), instr->shape())
                 ? instr->mutable_operand(0)
                 : FoldConvertIntoDot(instr);
    case HloOpcode::kCopy:
      return SameArray(instr->operand(0)->shape(), instr->shape())
                 ? instr->mutable_operand(0)
                 : nullptr;
    case HloOpcode::kBroadcast:
      return SameArray(instr->operand(0)->shape(), instr->shape()) &&
                     IsIdentityPermutation(instr->dimensions())
                 ? instr->mutable_operand(0)
                 : nullptr;
    case HloOpcode::kReduce:
      return SimplifyTrivialReduce(instr, names);
    case HloOpcode::kConvolution:
      return FoldKernelReverse(instr);
    case HloOpcode::kDot:
      return FoldOperandConvertsIntoDot(instr);
    default:
      return nullptr;
  }
}

}  // namespace

absl::Status SimplifyHlo(HloModule* module) {
  NameUniquer names(*module);
  int64_t rewrites = 0;
  for (HloComputation* computation : ExecutedComputations(*module)) {
    for (bool changed = true; changed;) {
      changed = false;
      for (HloInstruction* instr : computation->MakeInstructionPostOrder()) {
        HloInstruction* replacement = SimplifyOne(instr, names);
        if (replacement == nullptr) continue;
        ++rewrites;
        changed = true;
        if (replacement != instr) instr->ReplaceAllUsesWith(replacement);
      }
      // Dead instructions would otherwise keep matching the rules.
      computation->RemoveDeadInstructions();
    }
  }
  VLOG(1) << module->name() << ": simplifier applied " << rewrites
          << " rewrites";
  return absl::OkStatus();
}

}  // namespace xla_lite
