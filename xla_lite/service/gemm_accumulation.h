#ifndef XLA_LITE_SERVICE_GEMM_ACCUMULATION_H_
#define XLA_LITE_SERVICE_GEMM_ACCUMULATION_H_

#include <optional>

#include "xla_lite/hlo/hlo_instruction.h"

namespace xla_lite::gpu {

// A value of the form addend + alpha * dot (written as add, or as subtract
// with alpha negated, with alpha a scalar constant multiply or 1), which
// one gemm with beta = 1 computes into the addend's bytes: out = alpha *
// op(lhs) @ op(rhs) + out. An optimizer step `w - lr * grad(w)` is the
// typical case; the gradient is then never stored and no kernel of its own
// applies it. A gradient transposed to the weight's shape arrives here as
// a dot of swapped operands (SimplifyHlo folds the transpose into it).
struct GemmAccumulation {
  const HloInstruction* dot = nullptr;
  const HloInstruction* addend = nullptr;
  float alpha = 1.0f;
};

// Matches `value` when the dot, and every op between it and `value`, has no
// other user, and all of them are f32 (so that one rounding of alpha * acc
// and one of the sum give exactly the HLO's result: -(c * x) is exact, and
// p + -(y) is p - y).
std::optional<GemmAccumulation> MatchGemmAccumulation(
    const HloInstruction& value);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_SERVICE_GEMM_ACCUMULATION_H_
