#ifndef XLA_LITE_HLO_HLO_VERIFIER_H_
#define XLA_LITE_HLO_HLO_VERIFIER_H_

#include "absl/status/status.h"
#include "xla_lite/hlo/hlo_module.h"

namespace xla_lite {

// Checks that every instruction's shape is the one its opcode, operands and
// attributes imply (layouts aside), that operand counts and attribute
// values are in range, that to_apply computations have the right
// signature, and that input_output_alias and entry_computation_layout agree
// with the entry computation. INVALID_ARGUMENT naming the instruction and
// what was expected.
absl::Status VerifyHloModule(const HloModule& module);

}  // namespace xla_lite

#endif  // XLA_LITE_HLO_HLO_VERIFIER_H_
