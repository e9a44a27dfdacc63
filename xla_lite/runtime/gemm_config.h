#ifndef XLA_LITE_RUNTIME_GEMM_CONFIG_H_
#define XLA_LITE_RUNTIME_GEMM_CONFIG_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "stream_executor/blas.h"
#include "stream_executor/device_address.h"
#include "xla_lite/shape.h"

namespace xla_lite::gpu {

// One batch dimension of a gemm: `size` products whose operands lie
// `lhs_stride` and `rhs_stride` elements apart in their buffers.
struct GemmBatchDim {
  int64_t size = 1;
  int64_t lhs_stride = 0, rhs_stride = 0;

  bool operator==(const GemmBatchDim& other) const {
    return size == other.size && lhs_stride == other.lhs_stride &&
           rhs_stride == other.rhs_stride;
  }
};

// How a gemm finds one operand's matrix of every batch in a buffer: the
// stored matrix is row-major with `ld` elements from one row's start to the
// next (at least its row length), and op() transposes it when `transposed`.
struct GemmOperandLayout {
  Shape shape;  // The buffer's: element type and element count.
  bool transposed = false;
  int64_t ld = 0;
};

// A row-major (batched) matrix product as HLO describes it:
//   out[b, m, n] = alpha * sum_k op(lhs)[b, m, k] * op(rhs)[b, k, n]
//                  + beta * out[b, m, n]
// where op() transposes the two minor dimensions when asked. The output is
// dense: batch b's matrix starts at b * m * n. The operands are strided
// batches of matrices (a dot whose batch dimensions sit anywhere, read in
// place): batch b = (b_0, ..., b_last) over batch_dims, outermost first,
// starts at sum_i b_i * stride_i.
struct GemmConfig {
  // The dense form: operands rank 2, or rank 3 with a leading batch
  // dimension shared by all three, each stored as its shape says. Checks
  // that the shapes describe such a product and derives its sizes.
  static absl::StatusOr<GemmConfig> For(const Shape& lhs, bool transpose_lhs,
                                        const Shape& rhs, bool transpose_rhs,
                                        const Shape& output, float alpha,
                                        float beta);

  // The general form. Operands are f32 or bf16 (both one type), the output
  // has their type or is f32 for bf16 operands. INVALID_ARGUMENT unless
  // every element any batch reads lies inside its buffer, leading
  // dimensions cover their rows, and `output` holds batch * m * n elements.
  static absl::StatusOr<GemmConfig> ForStrided(
      const GemmOperandLayout& lhs, const GemmOperandLayout& rhs,
      const Shape& output, std::vector<GemmBatchDim> batch_dims, int64_t m,
      int64_t n, int64_t k, float alpha, float beta);

  // The same product in BLAS's column-major terms. A row-major matrix is
  // its column-major transpose, so out^T = op(rhs)^T * op(lhs)^T: the
  // operands swap places and m and n trade roles. One strided batched call
  // when the batch dimensions are at most one; otherwise the largest one is
  // the calls' batch and there is a call per index of the others.
  std::vector<se::blas::GemmCall> ToBlasCalls(
      se::DeviceAddressBase lhs, se::DeviceAddressBase rhs,
      se::DeviceAddressBase output) const;

  // Where batch `b` (0 <= b < batch, row-major over batch_dims) starts in
  // each operand, in elements.
  std::pair<int64_t, int64_t> OperandOffsets(int64_t b) const;

  // Whether the operands are stored as For() stores them: densely packed
  // matrices, one batch after the other.
  bool IsDense() const;

  std::string ToString() const;

  Shape lhs_shape, rhs_shape, output_shape;  // The buffers'.
  bool transpose_lhs = false;
  bool transpose_rhs = false;
  int64_t lhs_ld = 0, rhs_ld = 0;
  std::vector<GemmBatchDim> batch_dims;  // Outermost first.
  float alpha = 1.0f;
  float beta = 0.0f;
  int64_t batch = 1, m = 0, n = 0, k = 0;
  se::blas::DataType type = se::blas::DataType::kF32;  // lhs's and rhs's.
  se::blas::DataType output_type = se::blas::DataType::kF32;
  // f32 operands may be rounded to TF32 (GemmCall::allow_tf32): the dot
  // asked for DEFAULT precision, as XLA reads it.
  bool allow_tf32 = false;
  // An f32 product the emitted gemm runs on FP64 tensor cores (sm_90's
  // mma.m16n8k8.f64): exact products, f64 sums, the result rounded to f32
  // once. Set by the compiler (KernelEmission::Finish); BLAS never sees it.
  bool f64_tensor_cores = false;
};

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_RUNTIME_GEMM_CONFIG_H_
