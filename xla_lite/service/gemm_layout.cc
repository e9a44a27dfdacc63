#include "xla_lite/service/gemm_layout.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla_lite/service/fusion_plan.h"
#include "xla_lite/service/hlo_rewrite_util.h"

namespace xla_lite::gpu {
namespace {

// Dimensions of an array read as one: `size` elements `stride` apart. A
// run of at most one element has no stride: any serves.
struct Run {
  int64_t size = 1;
  std::optional<int64_t> stride;
};

// `dims` of `array` as one dimension in the order given, when they chain:
// each one's stride is the next one's times the next one's size. Sizes of
// one are skipped, as their strides are never used; with a size of zero
// nothing is read and any layout serves.
std::optional<Run> Collapse(const StridedArray& array,
                            absl::Span<const int64_t> dims) {
  Run run;
  for (int64_t d : dims) {
    const int64_t size = array.dims[d];
    if (size == 0) return Run{0, std::nullopt};
    if (size == 1) continue;
    if (run.stride.has_value() && *run.stride != size * array.strides[d]) {
      return std::nullopt;
    }
    run.size *= size;
    run.stride = array.strides[d];
  }
  return run;
}

struct MatrixLayout {
  bool transposed = false;
  int64_t ld = 1;
};

// A rows x cols matrix whose rows and columns are `rows` and `cols` apart,
// as BLAS reads it: row-major when the columns are contiguous, else
// transposed (stored column-major) when the rows are, with a leading
// dimension no shorter than a stored row.
std::optional<MatrixLayout> MatrixOf(const Run& rows, const Run& cols) {
  auto contiguous = [](const Run& run) {
    return !run.stride.has_value() || *run.stride == 1;
  };
  const int64_t row_length = std::max<int64_t>(cols.size, 1);
  const int64_t column_length = std::max<int64_t>(rows.size, 1);
  if (contiguous(cols)) {
    int64_t ld = rows.stride.value_or(row_length);
    if (ld >= row_length) return MatrixLayout{false, ld};
  }
  if (contiguous(rows)) {
    int64_t ld = cols.stride.value_or(column_length);
    if (ld >= column_length) return MatrixLayout{true, ld};
  }
  return std::nullopt;
}

// One operand's matrix, or why it has none.
absl::StatusOr<MatrixLayout> OperandMatrix(
    const StridedArray& operand, absl::Span<const int64_t> free,
    absl::Span<const int64_t> contracting, bool is_lhs, Run& free_run,
    Run& contracting_run) {
  const char* name = is_lhs ? "lhs" : "rhs";
  std::optional<Run> f = Collapse(operand, free);
  std::optional<Run> c = Collapse(operand, contracting);
  if (!f.has_value() || !c.has_value()) {
    return absl::FailedPreconditionError(absl::StrCat(
        name, ": the ", f.has_value() ? "contracting" : "free",
        " dimensions {", absl::StrJoin(f.has_value() ? contracting : free, ","),
        "} are not one strided run (strides ",
        absl::StrJoin(operand.strides, ","), ")"));
  }
  std::optional<MatrixLayout> matrix =
      is_lhs ? MatrixOf(*f, *c) : MatrixOf(*c, *f);
  if (!matrix.has_value()) {
    return absl::FailedPreconditionError(absl::StrCat(
        name, ": neither its free nor its contracting dimensions are "
        "contiguous (strides ", absl::StrJoin(operand.strides, ","), ")"));
  }
  free_run = *f;
  contracting_run = *c;
  return *matrix;
}

// The batch pairs as gemm batch dimensions, merging neighbours whose
// strides chain in both operands (the output's always do).
std::vector<GemmBatchDim> BatchDims(const DotDimensionNumbers& dnums,
                                    const StridedArray& lhs,
                                    const StridedArray& rhs) {
  std::vector<GemmBatchDim> dims;
  for (size_t i = 0; i < dnums.lhs_batch_dimensions.size(); ++i) {
    const int64_t l = dnums.lhs_batch_dimensions[i];
    const int64_t r = dnums.rhs_batch_dimensions[i];
    const int64_t size = lhs.dims[l];
    if (size == 1) continue;
    GemmBatchDim dim{size, lhs.strides[l], rhs.strides[r]};
    if (!dims.empty() && size > 0 &&
        dims.back().lhs_stride == size * dim.lhs_stride &&
        dims.back().rhs_stride == size * dim.rhs_stride) {
      dims.back().size *= size;
      dims.back().lhs_stride = dim.lhs_stride;
      dims.back().rhs_stride = dim.rhs_stride;
      continue;
    }
    dims.push_back(dim);
  }
  return dims;
}

}  // namespace

StridedArray RowMajorArray(absl::Span<const int64_t> dims) {
  StridedArray array{std::vector<int64_t>(dims.begin(), dims.end()),
                     std::vector<int64_t>(dims.size(), 1)};
  for (int64_t d = static_cast<int64_t>(dims.size()) - 2; d >= 0; --d) {
    array.strides[d] = array.strides[d + 1] * dims[d + 1];
  }
  return array;
}

StridedArray GemmOperandView(const HloInstruction* operand) {
  GemmOperand resolved = ResolveGemmOperand(operand);
  if (!resolved.transposed) {
    return RowMajorArray(operand->shape().dimensions());
  }
  // The transpose's operand is row-major; the transpose swaps the minor two.
  StridedArray view = RowMajorArray(operand->operand(0)->shape().dimensions());
  const size_t rank = view.dims.size();
  std::swap(view.dims[rank - 1], view.dims[rank - 2]);
  std::swap(view.strides[rank - 1], view.strides[rank - 2]);
  return view;
}

std::vector<int64_t> FreeDimensions(int64_t rank,
                                    absl::Span<const int64_t> batch,
                                    absl::Span<const int64_t> contracting) {
  std::vector<int64_t> free;
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
        std::find(contracting.begin(), contracting.end(), d) ==
            contracting.end()) {
      free.push_back(d);
    }
  }
  return free;
}

absl::StatusOr<DotGemmLayout> FoldDotIntoGemm(const DotDimensionNumbers& dnums,
                                              const StridedArray& lhs,
                                              const StridedArray& rhs) {
  DotGemmLayout layout;
  Run m, n, lhs_k, rhs_k;
  absl::StatusOr<MatrixLayout> a = OperandMatrix(
      lhs,
      FreeDimensions(lhs.dims.size(), dnums.lhs_batch_dimensions,
                     dnums.lhs_contracting_dimensions),
      dnums.lhs_contracting_dimensions, /*is_lhs=*/true, m, lhs_k);
  if (!a.ok()) return a.status();
  absl::StatusOr<MatrixLayout> b = OperandMatrix(
      rhs,
      FreeDimensions(rhs.dims.size(), dnums.rhs_batch_dimensions,
                     dnums.rhs_contracting_dimensions),
      dnums.rhs_contracting_dimensions, /*is_lhs=*/false, n, rhs_k);
  if (!b.ok()) return b.status();
  layout.m = m.size;
  layout.n = n.size;
  layout.k = lhs_k.size;
  layout.transpose_lhs = a->transposed;
  layout.lhs_ld = a->ld;
  layout.transpose_rhs = b->transposed;
  layout.rhs_ld = b->ld;
  layout.batch_dims = BatchDims(dnums, lhs, rhs);
  return layout;
}

bool IsGemmMatrix(const StridedArray& operand, absl::Span<const int64_t> free,
                  absl::Span<const int64_t> contracting, bool is_lhs) {
  Run f, c;
  return OperandMatrix(operand, free, contracting, is_lhs, f, c).ok();
}

}  // namespace xla_lite::gpu
