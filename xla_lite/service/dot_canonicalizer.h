#ifndef XLA_LITE_SERVICE_DOT_CANONICALIZER_H_
#define XLA_LITE_SERVICE_DOT_CANONICALIZER_H_

#include "absl/status/status.h"
#include "xla_lite/hlo/hlo_instruction.h"
#include "xla_lite/hlo/hlo_module.h"

namespace xla_lite {

// Rewrites every dot of the entry computation into a form one batched gemm
// computes by reading its operands in place (FoldDotIntoGemm over the
// operands' strides, gemm_layout.h): batch dimensions anywhere, the free
// and contracting dimensions of each operand each one strided run, one of
// the two contiguous. A dot already of that form is left alone. Otherwise,
// with as few copies as possible:
//  - the contracting pairs are listed in the order in which they chain;
//  - an operand that is a transpose is read through it (the transpose is
//    folded into the dimension numbers) when its free dimensions keep
//    their order, so the dot's result is unchanged;
//  - an operand that still does not fit is copied by a transpose into
//    [batch, matrix] order.
// When no such form exists (two conflicting copies that a gemm would read
// through), both operands are transposed and flattened to rank 2 or 3 and
// the result reshaped back. INTERNAL if a dot still does not fit after
// all this.
absl::Status CanonicalizeDots(HloModule* module);

// Whether `dot` already has the form above.
bool IsCanonicalDot(const HloInstruction& dot);

}  // namespace xla_lite

#endif  // XLA_LITE_SERVICE_DOT_CANONICALIZER_H_
