#include "xla_lite/service/gemm_lowering.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "xla_lite/service/dot_canonicalizer.h"

namespace xla_lite::gpu {
namespace {

// The operand as its source stores it: the two minor dimensions swapped
// when the source holds it transposed.
Shape StoredShape(const HloInstruction& operand, bool transposed) {
  std::vector<int64_t> dims = operand.shape().dimensions();
  if (transposed) std::swap(dims[dims.size() - 1], dims[dims.size() - 2]);
  return Shape(operand.shape().element_type(), std::move(dims));
}

}  // namespace

absl::StatusOr<GemmLowering> LowerDot(const HloInstruction& dot) {
  if (!IsCanonicalDot(dot)) {
    return absl::InternalError(absl::StrCat(
        "dot ", dot.name(), " was not canonicalized before gemm lowering"));
  }
  const HloInstruction& lhs = *dot.operand(0);
  const HloInstruction& rhs = *dot.operand(1);
  int64_t rank = dot.shape().rank();
  const DotDimensionNumbers& dnums = dot.dot_dimension_numbers();
  bool lhs_k_first = dnums.lhs_contracting_dimensions[0] == rank - 2;
  bool rhs_k_last = dnums.rhs_contracting_dimensions[0] == rank - 1;
  GemmLowering lowering;
  lowering.lhs = ResolveGemmOperand(&lhs);
  lowering.rhs = ResolveGemmOperand(&rhs);
  // op(stored lhs) must be [m,k] and op(stored rhs) [k,n].
  bool transpose_lhs = lhs_k_first != lowering.lhs.transposed;
  bool transpose_rhs = rhs_k_last != lowering.rhs.transposed;
  absl::StatusOr<GemmConfig> config =
      GemmConfig::For(StoredShape(lhs, lowering.lhs.transposed), transpose_lhs,
                      StoredShape(rhs, lowering.rhs.transposed), transpose_rhs,
                      dot.shape(), 1.0f, 0.0f);
  if (!config.ok()) {
    return absl::UnimplementedError(absl::StrCat(
        "instruction ", dot.name(), " (dot) cannot be a gemm: ",
        config.status().message()));
  }
  lowering.config = *std::move(config);
  return lowering;
}

}  // namespace xla_lite::gpu
