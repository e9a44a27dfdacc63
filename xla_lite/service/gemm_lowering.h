#ifndef XLA_LITE_SERVICE_GEMM_LOWERING_H_
#define XLA_LITE_SERVICE_GEMM_LOWERING_H_

#include "absl/status/statusor.h"
#include "xla_lite/hlo/hlo_instruction.h"
#include "xla_lite/runtime/gemm_config.h"
#include "xla_lite/service/fusion_plan.h"

namespace xla_lite::gpu {

// A canonical dot (see CanonicalizeDots) as one gemm: which materialized
// values it reads and the row-major GemmConfig over their bytes. The
// contracting dimension's position and a transposed source both become
// transpose flags.
struct GemmLowering {
  GemmOperand lhs, rhs;
  GemmConfig config;
};

// UNIMPLEMENTED naming the dot for element types or forms a gemm cannot
// take (mixed types, non-canonical dimension numbers).
absl::StatusOr<GemmLowering> LowerDot(const HloInstruction& dot);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_SERVICE_GEMM_LOWERING_H_
