#ifndef XLA_LITE_SERVICE_GEMM_LOWERING_H_
#define XLA_LITE_SERVICE_GEMM_LOWERING_H_

#include "absl/status/statusor.h"
#include "xla_lite/hlo/hlo_instruction.h"
#include "xla_lite/runtime/gemm_config.h"
#include "xla_lite/service/fusion_plan.h"
#include "xla_lite/service/gemm_accumulation.h"

namespace xla_lite::gpu {

// A canonical dot (see CanonicalizeDots) as one batched gemm: which
// materialized values it reads and the GemmConfig over their buffers. Each
// operand's strides (its reshapes, a transpose looked through, batch
// dimensions anywhere) become the config's transposes, leading dimensions
// and batch strides, so no operand is copied here.
struct GemmLowering {
  GemmOperand lhs, rhs;
  GemmConfig config;
};

// UNIMPLEMENTED naming the dot for element types a gemm cannot take
// (integers, f16, an f32 dot of bf16 operands is fine); INTERNAL for a dot
// CanonicalizeDots did not bring into form.
absl::StatusOr<GemmLowering> LowerDot(const HloInstruction& dot);

// Whether `dot`'s gemm may round f32 operands to TF32: both are f32 and
// every operand_precision is DEFAULT (an absent list is DEFAULT), as XLA
// reads PrecisionConfig.
bool DotAllowsTf32(const HloInstruction& dot);

// The gemm that computes `accumulation` into a value of `value_shape`:
// alpha as matched, beta = 1, and for a transposed value the product
// out^T = op(rhs)^T op(lhs)^T, with the operands swapped.
absl::StatusOr<GemmLowering> LowerAccumulation(
    const GemmAccumulation& accumulation, const Shape& value_shape);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_SERVICE_GEMM_LOWERING_H_
