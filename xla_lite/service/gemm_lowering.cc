#include "xla_lite/service/gemm_lowering.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "xla_lite/service/gemm_layout.h"

namespace xla_lite::gpu {
namespace {

// The buffer a gemm operand reads: its source's, as a plain array.
GemmOperandLayout BufferLayout(const GemmOperand& operand, bool transposed,
                               int64_t ld) {
  const Shape& shape = operand.source->shape();
  return {Shape(shape.element_type(), shape.dimensions()), transposed, ld};
}

absl::StatusOr<GemmLowering> Lower(const HloInstruction& dot,
                                   const Shape& output, float alpha,
                                   float beta) {
  const HloInstruction* lhs = dot.operand(0);
  const HloInstruction* rhs = dot.operand(1);
  absl::StatusOr<DotGemmLayout> layout =
      FoldDotIntoGemm(dot.dot_dimension_numbers(), GemmOperandView(lhs),
                      GemmOperandView(rhs));
  if (!layout.ok()) {
    return absl::InternalError(
        absl::StrCat("dot ", dot.name(), " was not canonicalized before gemm "
                     "lowering: ", layout.status().message()));
  }
  GemmLowering lowering;
  lowering.lhs = ResolveGemmOperand(lhs);
  lowering.rhs = ResolveGemmOperand(rhs);
  absl::StatusOr<GemmConfig> config = GemmConfig::ForStrided(
      BufferLayout(lowering.lhs, layout->transpose_lhs, layout->lhs_ld),
      BufferLayout(lowering.rhs, layout->transpose_rhs, layout->rhs_ld),
      Shape(output.element_type(), output.dimensions()),
      std::move(layout->batch_dims), layout->m, layout->n, layout->k, alpha,
      beta);
  if (!config.ok()) {
    return absl::UnimplementedError(absl::StrCat(
        "instruction ", dot.name(), " (dot) cannot be a gemm: ",
        config.status().message()));
  }
  lowering.config = *std::move(config);
  lowering.config.allow_tf32 = DotAllowsTf32(dot);
  return lowering;
}

}  // namespace

bool DotAllowsTf32(const HloInstruction& dot) {
  if (dot.operand(0)->shape().element_type() != PrimitiveType::F32 ||
      dot.operand(1)->shape().element_type() != PrimitiveType::F32) {
    return false;
  }
  for (PrecisionConfig precision : dot.operand_precision()) {
    if (precision != PrecisionConfig::kDefault) return false;
  }
  return true;
}

absl::StatusOr<GemmLowering> LowerDot(const HloInstruction& dot) {
  return Lower(dot, dot.shape(), 1.0f, 0.0f);
}

absl::StatusOr<GemmLowering> LowerAccumulation(
    const GemmAccumulation& accumulation, const Shape& value_shape) {
  return Lower(*accumulation.dot, value_shape, accumulation.alpha, 1.0f);
}

}  // namespace xla_lite::gpu
