#include "stream_executor/blas.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace stream_executor::blas {

int64_t SizeOf(DataType type) { return type == DataType::kF32 ? 4 : 2; }

std::string ToString(Transpose t) {
  return t == Transpose::kNoTranspose ? "N" : "T";
}
std::string ToString(DataType t) {
  return t == DataType::kF32 ? "f32" : "bf16";
}

namespace {

// Bytes a column-major rows x cols operand with leading dimension `ld`
// occupies across `batch` batches `stride` elements apart.
uint64_t RequiredBytes(uint64_t rows, uint64_t cols, int64_t ld, int64_t batch,
                       int64_t stride, DataType type) {
  if (rows == 0 || cols == 0) return 0;
  uint64_t last = (batch - 1) * stride + (cols - 1) * ld + rows;
  return last * SizeOf(type);
}

absl::Status CheckOperand(const char* name, const DeviceAddressBase& mem,
                          uint64_t rows, uint64_t cols, int64_t ld,
                          int64_t batch, int64_t stride, DataType type) {
  if (ld < static_cast<int64_t>(rows == 0 ? 1 : rows)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "gemm: leading dimension of %s is %d, expected >= %d", name, ld, rows));
  }
  uint64_t need = RequiredBytes(rows, cols, ld, batch, stride, type);
  if (mem.size() < need) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "gemm: %s holds %d bytes, the call needs %d", name, mem.size(), need));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status GemmCall::Validate() const {
  if (CType() != type &&
      !(type == DataType::kBF16 && CType() == DataType::kF32)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "gemm: %s operands with a %s result are not supported (the result "
        "has the operands' type, or is f32 for bf16 operands)",
        blas::ToString(type), blas::ToString(CType())));
  }
  if (batch_count < 1) {
    return absl::InvalidArgumentError(
        absl::StrFormat("gemm: batch_count is %d, expected >= 1", batch_count));
  }
  bool ta = transa == Transpose::kTranspose;
  bool tb = transb == Transpose::kTranspose;
  // Stored shapes: A is (m x k) or (k x m) when transposed; likewise B.
  absl::Status s = CheckOperand("A", a, ta ? k : m, ta ? m : k, lda,
                                batch_count, stride_a, type);
  if (!s.ok()) return s;
  s = CheckOperand("B", b, tb ? n : k, tb ? k : n, ldb, batch_count, stride_b,
                   type);
  if (!s.ok()) return s;
  return CheckOperand("C", c, m, n, ldc, batch_count, stride_c, CType());
}

std::string GemmCall::ToString() const {
  return absl::StrFormat(
      "gemm %s%s m=%d n=%d k=%d %s%s alpha=%g beta=%g lda=%d ldb=%d ldc=%d "
      "batch=%d strides=%d,%d,%d%s",
      blas::ToString(transa), blas::ToString(transb), m, n, k,
      blas::ToString(type),
      CType() == type ? "" : absl::StrCat("->", blas::ToString(CType())), alpha,
      beta, lda, ldb, ldc, batch_count, stride_a, stride_b, stride_c,
      allow_tf32 ? " tf32" : "");
}

}  // namespace stream_executor::blas
