#ifndef XLA_LITE_HLO_HLO_EVALUATOR_INTERNAL_H_
#define XLA_LITE_HLO_HLO_EVALUATOR_INTERNAL_H_

// Pieces of the reference evaluator, split by kind of operation. Values are
// logical (row-major) arrays whatever the layouts in the text.

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xla_lite/hlo/hlo_instruction.h"
#include "xla_lite/hlo/literal.h"

namespace xla_lite::evaluator_internal {

// Row-major index <-> linear position.
std::vector<int64_t> MultiIndex(const std::vector<int64_t>& dimensions,
                                int64_t linear);
int64_t LinearIndex(const std::vector<int64_t>& dimensions,
                    const std::vector<int64_t>& index);

// Unary and binary elementwise ops, compare, select, clamp, convert:
// `operands` are the instruction's operand values, in order.
absl::StatusOr<Literal> EvaluateElementwise(
    const HloInstruction& instr, absl::Span<const Literal* const> operands);

// out[out_index] = a[a_index] `opcode` b[b_index] for an elementwise
// binary opcode, rounded to out's element type (a, b and out share it).
// Also what a reduce whose computation is a single binary op applies.
absl::Status ApplyBinaryElement(HloOpcode opcode, const Literal& a,
                                int64_t a_index, const Literal& b,
                                int64_t b_index, Literal* out,
                                int64_t out_index);

// broadcast, reshape, bitcast, copy, transpose, slice, concatenate,
// reverse, iota.
absl::StatusOr<Literal> EvaluateDataMovement(
    const HloInstruction& instr, absl::Span<const Literal* const> operands);

// dot with any batch and contracting dimensions, accumulated in double
// (int64 for integers) and rounded once.
absl::StatusOr<Literal> EvaluateDot(const HloInstruction& instr,
                                    const Literal& lhs, const Literal& rhs);

}  // namespace xla_lite::evaluator_internal

#endif  // XLA_LITE_HLO_HLO_EVALUATOR_INTERNAL_H_
