// Shape rules of while, conditional, dynamic-slice and dynamic-update-slice,
// as XLA's shape inference states them. A loop's state and a branch's
// operand may be tuples; everything a computation receives or returns must
// agree exactly with what its caller passes or expects, since the runtime
// hands the body the very buffers of the carried state.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "xla_lite/hlo/hlo_computation.h"
#include "xla_lite/hlo/hlo_shape_checker.h"

namespace xla_lite::verifier_internal {
namespace {

// `computation` takes exactly one parameter of shape `parameter` and
// returns `result`; `role` names it in errors.
absl::Status CheckSignature(const Checker& c, absl::string_view role,
                            const HloComputation* computation,
                            const Shape& parameter, const Shape& result) {
  if (computation == nullptr) {
    return c.Error(absl::StrCat("expected a ", role, " computation"));
  }
  const std::string name = absl::StrCat(role, " '", computation->name(), "'");
  if (computation->num_parameters() != 1 ||
      computation->parameter_instruction(0) == nullptr) {
    return c.Error(absl::StrCat("expected ", name, " to take 1 parameter, got ",
                                computation->num_parameters()));
  }
  const Shape& actual = computation->parameter_instruction(0)->shape();
  if (!actual.Compatible(parameter)) {
    return c.Error(absl::StrCat("expected the parameter of ", name, " to be ",
                                parameter.ToString(), ", got ",
                                actual.ToString()));
  }
  const HloInstruction* root = computation->root_instruction();
  if (root == nullptr || !root->shape().Compatible(result)) {
    return c.Error(absl::StrCat(
        "expected ", name, " to return ", result.ToString(), ", got ",
        root == nullptr ? std::string("nothing") : root->shape().ToString()));
  }
  return absl::OkStatus();
}

// The scalar integer start indices of a dynamic slice, operands `first`
// on, one per dimension of a rank-`rank` operand, all of one type.
absl::Status CheckStartIndices(const Checker& c, int64_t first, int64_t rank) {
  const int64_t count = c.instr().operand_count() - first;
  if (count != rank) {
    return c.Error(absl::StrCat("expected ", rank,
                                " scalar start indices (one per dimension), "
                                "got ",
                                count));
  }
  for (int64_t i = first; i < c.instr().operand_count(); ++i) {
    const Shape& index = c.operand_shape(i);
    const bool integral = index.IsArray() && index.rank() == 0 &&
                          primitive_util::IsIntegralType(index.element_type());
    if (!integral ||
        index.element_type() != c.operand_shape(first).element_type()) {
      return c.Error(absl::StrCat(
          "expected start index operand ", i, " ('",
          c.instr().operand(i)->name(),
          "') to be an integer scalar of the same type as the others, got ",
          index.ToString()));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckWhile(const Checker& c) {
  RETURN_IF_ERROR(c.OperandCount(1));
  const HloInstruction& instr = c.instr();
  if (instr.called_computations().size() != 2) {
    return c.Error("expected condition= and body=");
  }
  const Shape& state = c.operand_shape(0);
  RETURN_IF_ERROR(CheckSignature(c, "condition", instr.while_condition(), state,
                                 Shape::Array(PrimitiveType::PRED, {})));
  RETURN_IF_ERROR(CheckSignature(c, "body", instr.while_body(), state, state));
  return c.Result(state);
}

absl::Status CheckConditional(const Checker& c) {
  const HloInstruction& instr = c.instr();
  if (instr.operand_count() < 1) {
    return c.Error("expected a branch index or predicate operand, got none");
  }
  const Shape& selector = c.operand_shape(0);
  const bool is_pred = selector.IsArray() && selector.rank() == 0 &&
                       selector.element_type() == PrimitiveType::PRED;
  const bool is_index = selector.IsArray() && selector.rank() == 0 &&
                        selector.element_type() == PrimitiveType::S32;
  if (!is_pred && !is_index) {
    return c.Error(
        absl::StrCat("expected a pred[] predicate or s32[] branch index, got ",
                     selector.ToString()));
  }
  const int64_t branches = instr.branch_count();
  if (branches < 1 || (is_pred && branches != 2)) {
    return c.Error(absl::StrCat("expected ", is_pred ? "2" : "at least 1",
                                " branch computations, got ", branches));
  }
  RETURN_IF_ERROR(c.OperandCount(branches + 1));
  for (int64_t b = 0; b < branches; ++b) {
    RETURN_IF_ERROR(CheckSignature(c, absl::StrCat("branch ", b),
                                   instr.branch_computation(b),
                                   c.operand_shape(b + 1), instr.shape()));
  }
  return absl::OkStatus();
}

absl::Status CheckDynamicSlice(const Checker& c) {
  const HloInstruction& instr = c.instr();
  if (instr.operand_count() < 1) return c.Error("expected operands, got none");
  const Shape& operand = c.operand_shape(0);
  if (!operand.IsArray() || !instr.shape().IsArray()) {
    return c.Error(absl::StrCat("expected an array operand and result, got ",
                                operand.ToString(), " -> ",
                                instr.shape().ToString()));
  }
  RETURN_IF_ERROR(CheckStartIndices(c, 1, operand.rank()));
  const std::vector<int64_t>& sizes = instr.dynamic_slice_sizes();
  if (static_cast<int64_t>(sizes.size()) != operand.rank()) {
    return c.Error(absl::StrCat("expected ", operand.rank(),
                                " dynamic_slice_sizes, got ", Dims(sizes)));
  }
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (sizes[d] < 0 || sizes[d] > operand.dimensions(d)) {
      return c.Error(absl::StrCat("expected dynamic_slice_sizes ", Dims(sizes),
                                  " within the operand ", operand.ToString()));
    }
  }
  return c.Result(Shape::Array(operand.element_type(), sizes));
}

absl::Status CheckDynamicUpdateSlice(const Checker& c) {
  const HloInstruction& instr = c.instr();
  if (instr.operand_count() < 2) {
    return c.Error(
        absl::StrCat("expected an operand, an update and start "
                     "indices, got ",
                     instr.operand_count(), " operands"));
  }
  const Shape& operand = c.operand_shape(0);
  const Shape& update = c.operand_shape(1);
  if (!operand.IsArray() || !update.IsArray() ||
      update.rank() != operand.rank() ||
      update.element_type() != operand.element_type()) {
    return c.Error(absl::StrCat(
        "expected an update of the operand's element type and rank, got ",
        update.ToString(), " for ", operand.ToString()));
  }
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (update.dimensions(d) > operand.dimensions(d)) {
      return c.Error(absl::StrCat("expected the update ", update.ToString(),
                                  " to fit in the operand ",
                                  operand.ToString()));
    }
  }
  RETURN_IF_ERROR(CheckStartIndices(c, 2, operand.rank()));
  return c.Result(operand);
}

}  // namespace xla_lite::verifier_internal
