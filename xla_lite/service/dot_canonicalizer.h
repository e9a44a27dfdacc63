#ifndef XLA_LITE_SERVICE_DOT_CANONICALIZER_H_
#define XLA_LITE_SERVICE_DOT_CANONICALIZER_H_

#include "absl/status/status.h"
#include "xla_lite/hlo/hlo_instruction.h"
#include "xla_lite/hlo/hlo_module.h"

namespace xla_lite {

// Rewrites every dot of the entry computation into the form a gemm takes:
// operands of rank 2 ([m,k] x [k,n]) or rank 3 with the batch dimension
// first ([b,m,k] x [b,k,n]), one contracting dimension per operand among
// its two minor ones. Batch, free and contracting dimensions are grouped by
// transposes (only when the operand's order does not group them already)
// and flattened by reshapes; the result is reshaped back to the dot's
// dimensions. Gemm lowering turns a contracting dimension in the other
// minor position, and a transpose of the two minor dimensions, into the
// gemm's transpose flags, so the common 2-d cases need no data movement.
absl::Status CanonicalizeDots(HloModule* module);

// Whether `dot` already has the form above.
bool IsCanonicalDot(const HloInstruction& dot);

}  // namespace xla_lite

#endif  // XLA_LITE_SERVICE_DOT_CANONICALIZER_H_
