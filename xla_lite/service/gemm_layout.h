#ifndef XLA_LITE_SERVICE_GEMM_LAYOUT_H_
#define XLA_LITE_SERVICE_GEMM_LAYOUT_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xla_lite/hlo/hlo_instruction.h"
#include "xla_lite/runtime/gemm_config.h"

namespace xla_lite::gpu {

// An array as some buffer holds it: each dimension's size and the distance
// in elements between its consecutive indices.
struct StridedArray {
  std::vector<int64_t> dims, strides;
};

StridedArray RowMajorArray(absl::Span<const int64_t> dims);

// `operand` (a dot's operand) as its gemm reads it: the buffer of
// ResolveGemmOperand(operand).source, row-major in the shape the reshapes
// give it, with the two minor strides swapped when a transpose of the
// minor dimensions was looked through.
StridedArray GemmOperandView(const HloInstruction* operand);

// The dimensions of a rank-`rank` dot operand that are neither batch nor
// contracting, ascending: the order the dot's result has them in.
std::vector<int64_t> FreeDimensions(int64_t rank,
                                    absl::Span<const int64_t> batch,
                                    absl::Span<const int64_t> contracting);

// A dot as one batched gemm that reads its operands where they lie, in
// GemmConfig's row-major terms: m is the product of the lhs free
// dimensions, n of the rhs free ones, k of the contracting pairs; batch
// dimensions whose strides chain in both operands are merged.
struct DotGemmLayout {
  std::vector<GemmBatchDim> batch_dims;
  int64_t m = 1, n = 1, k = 1;
  bool transpose_lhs = false, transpose_rhs = false;
  int64_t lhs_ld = 1, rhs_ld = 1;
};

// The gemm for a dot with `dnums` over operands held as `lhs` and `rhs`.
// It exists when, in each operand, the free dimensions (ascending) and the
// contracting dimensions (in `dnums` order) each chain into one dimension,
// and one of the two is contiguous: the operand is then a strided batch of
// row-major matrices, transposed or not, with a leading dimension. Batch
// dimensions may have any strides. FAILED_PRECONDITION says which operand
// does not fit and why.
absl::StatusOr<DotGemmLayout> FoldDotIntoGemm(const DotDimensionNumbers& dnums,
                                              const StridedArray& lhs,
                                              const StridedArray& rhs);

// One operand's part of the condition above: whether `operand` reads in
// place as the gemm's lhs (free dimensions as rows) or rhs (free
// dimensions as columns), with `contracting` in the order given.
bool IsGemmMatrix(const StridedArray& operand, absl::Span<const int64_t> free,
                  absl::Span<const int64_t> contracting, bool is_lhs);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_SERVICE_GEMM_LAYOUT_H_
