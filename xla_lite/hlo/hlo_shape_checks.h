#ifndef XLA_LITE_HLO_HLO_SHAPE_CHECKS_H_
#define XLA_LITE_HLO_HLO_SHAPE_CHECKS_H_

#include "absl/status/status.h"
#include "xla_lite/hlo/hlo_instruction.h"

namespace xla_lite::verifier_internal {

// Checks one instruction against its opcode's shape rules: operand count,
// operand shapes, attribute values and the result shape they imply
// (layouts aside). INVALID_ARGUMENT naming the instruction.
absl::Status CheckInstructionShape(const HloInstruction& instr);

}  // namespace xla_lite::verifier_internal

#endif  // XLA_LITE_HLO_HLO_SHAPE_CHECKS_H_
