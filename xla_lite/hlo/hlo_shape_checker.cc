#include "xla_lite/hlo/hlo_shape_checker.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"

namespace xla_lite::verifier_internal {

std::string Dims(const std::vector<int64_t>& dims) {
  return absl::StrCat("{", absl::StrJoin(dims, ","), "}");
}

std::string Checker::Where() const {
  std::string where = instr_.SourceLocation();
  if (!where.empty()) absl::StrAppend(&where, ": ");
  absl::StrAppend(&where, "instruction '", instr_.name(), "' (",
                  HloOpcodeString(instr_.opcode()), ")");
  if (instr_.parent() != nullptr) {
    absl::StrAppend(&where, " in computation '", instr_.parent()->name(), "'");
  }
  return where;
}

absl::Status Checker::Error(absl::string_view message) const {
  return absl::InvalidArgumentError(absl::StrCat(Where(), ": ", message));
}

absl::Status Checker::Unimplemented(absl::string_view message) const {
  return absl::UnimplementedError(absl::StrCat(Where(), ": ", message));
}

absl::Status Checker::OperandCount(int64_t expected) const {
  if (instr_.operand_count() == expected) return absl::OkStatus();
  return Error(absl::StrCat("expected ", expected, " operands, got ",
                            instr_.operand_count()));
}

absl::Status Checker::AllArrays() const {
  if (!instr_.shape().IsArray()) {
    return Error(absl::StrCat("expected an array result, got ",
                              instr_.shape().ToString()));
  }
  for (int64_t i = 0; i < instr_.operand_count(); ++i) {
    if (!instr_.operand(i)->shape().IsArray()) {
      return Error(absl::StrCat(
          "expected operand ", i, " ('", instr_.operand(i)->name(),
          "') to be an array, got ", instr_.operand(i)->shape().ToString()));
    }
  }
  return absl::OkStatus();
}

absl::Status Checker::Result(const Shape& expected) const {
  if (instr_.shape().Compatible(expected)) return absl::OkStatus();
  return Error(absl::StrCat("expected result shape ", expected.ToString(),
                            ", got ", instr_.shape().ToString()));
}

absl::Status Checker::SameAs(int64_t i, const Shape& expected,
                             absl::string_view role) const {
  const Shape& shape = instr_.operand(i)->shape();
  if (shape.Compatible(expected)) return absl::OkStatus();
  return Error(absl::StrCat("expected ", role, " (operand ", i, ", '",
                            instr_.operand(i)->name(), "') of shape ",
                            expected.ToString(), ", got ", shape.ToString()));
}

absl::Status Checker::DimensionList(const std::vector<int64_t>& dims,
                                    int64_t rank,
                                    absl::string_view what) const {
  std::vector<bool> seen(rank, false);
  for (int64_t d : dims) {
    if (d < 0 || d >= rank || seen[d]) {
      return Error(absl::StrCat("expected ", what, " ", Dims(dims),
                                " to be distinct dimensions in [0, ", rank,
                                ")"));
    }
    seen[d] = true;
  }
  return absl::OkStatus();
}

absl::Status Checker::SortedDimensionList(const std::vector<int64_t>& dims,
                                          int64_t rank,
                                          absl::string_view what) const {
  RETURN_IF_ERROR(DimensionList(dims, rank, what));
  if (std::is_sorted(dims.begin(), dims.end())) return absl::OkStatus();
  return Error(
      absl::StrCat("expected ", what, " ", Dims(dims), " in ascending order"));
}

absl::Status Checker::Disjoint(const std::vector<int64_t>& a,
                               absl::string_view a_what,
                               const std::vector<int64_t>& b,
                               absl::string_view b_what) const {
  for (int64_t d : a) {
    if (std::find(b.begin(), b.end(), d) != b.end()) {
      return Error(absl::StrCat(
          "expected ", a_what, " ", Dims(a), " and ", b_what, " ", Dims(b),
          " to have no dimension in common, got ", d, " in both"));
    }
  }
  return absl::OkStatus();
}

absl::Status Checker::ScalarBinaryComputation(const HloComputation* to_apply,
                                              PrimitiveType type) const {
  if (to_apply == nullptr) return Error("expected to_apply=, got none");
  const Shape scalar = Shape::Array(type, {});
  const auto& params = to_apply->parameter_instructions();
  const HloInstruction* root = to_apply->root_instruction();
  bool signature_ok =
      params.size() == 2 && root != nullptr && root->shape().Compatible(scalar);
  for (const HloInstruction* param : params) {
    signature_ok =
        signature_ok && param != nullptr && param->shape().Compatible(scalar);
  }
  if (signature_ok) return absl::OkStatus();
  return Error(absl::StrCat("expected to_apply '", to_apply->name(),
                            "' to be (", scalar.ToString(), ", ",
                            scalar.ToString(), ") -> ", scalar.ToString()));
}

}  // namespace xla_lite::verifier_internal
