#ifndef XLA_LITE_HLO_HLO_SHAPE_CHECKER_H_
#define XLA_LITE_HLO_HLO_SHAPE_CHECKER_H_

// The verifier's per-instruction checks share this: errors that say where
// (source line, instruction, computation) and what was expected, and the
// checks every opcode family repeats.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "xla_lite/hlo/hlo_computation.h"
#include "xla_lite/hlo/hlo_instruction.h"

namespace xla_lite::verifier_internal {

// "{1,2}".
std::string Dims(const std::vector<int64_t>& dims);

// Errors of one instruction, all phrased
// "<source>:<line>: instruction '<name>' (<opcode>) in computation '<c>':
// expected ..., got ...".
class Checker {
 public:
  explicit Checker(const HloInstruction& instr) : instr_(instr) {}

  // INVALID_ARGUMENT: the module is malformed.
  absl::Status Error(absl::string_view message) const;
  // UNIMPLEMENTED: well-formed, but a form nothing here supports yet.
  absl::Status Unimplemented(absl::string_view message) const;

  absl::Status OperandCount(int64_t expected) const;
  // Every operand and the result are arrays.
  absl::Status AllArrays() const;
  absl::Status Result(const Shape& expected) const;
  absl::Status SameAs(int64_t i, const Shape& expected,
                      absl::string_view role) const;
  // Distinct dimension numbers in [0, rank).
  absl::Status DimensionList(const std::vector<int64_t>& dims, int64_t rank,
                             absl::string_view what) const;
  // As DimensionList, and ascending (XLA's order for window dimensions).
  absl::Status SortedDimensionList(const std::vector<int64_t>& dims,
                                   int64_t rank, absl::string_view what) const;
  // No dimension in both lists.
  absl::Status Disjoint(const std::vector<int64_t>& a, absl::string_view a_what,
                        const std::vector<int64_t>& b,
                        absl::string_view b_what) const;
  // `to_apply` is (T[], T[]) -> T[] for `type` T: a reducer or combiner.
  absl::Status ScalarBinaryComputation(const HloComputation* to_apply,
                                       PrimitiveType type) const;

  const HloInstruction& instr() const { return instr_; }
  const Shape& operand_shape(int64_t i) const {
    return instr_.operand(i)->shape();
  }

 private:
  std::string Where() const;

  const HloInstruction& instr_;
};

// gather(operand, start_indices) and scatter(operand, indices, updates):
// XLA's shape inference, batching dimensions included.
absl::Status CheckGather(const Checker& c);
absl::Status CheckScatter(const Checker& c);
// convolution, reduce-window and select-and-scatter: XLA's shape
// inference for windows, dim_labels and group counts.
absl::Status CheckWindowed(const Checker& c);

// while(state) and conditional(selector, operands...): the called
// computations' signatures against the operands and the result.
absl::Status CheckWhile(const Checker& c);
absl::Status CheckConditional(const Checker& c);
// dynamic-slice(operand, starts...) and dynamic-update-slice(operand,
// update, starts...): one integer scalar start per operand dimension.
absl::Status CheckDynamicSlice(const Checker& c);
absl::Status CheckDynamicUpdateSlice(const Checker& c);
// all-reduce, all-gather, reduce-scatter, collective-permute, replica-id,
// partition-id and custom-call.
absl::Status CheckCollective(const Checker& c);
// pad(operand, padding_value): hlo_shape_checks_pad.cc.
absl::Status CheckPad(const Checker& c);

}  // namespace xla_lite::verifier_internal

#endif  // XLA_LITE_HLO_HLO_SHAPE_CHECKER_H_
